"""The page header: what was audited (spec, data, model file, each by its SHA-256) and with what."""
from __future__ import annotations

from dataclasses import dataclass

from fairspec.report.format import UNDEFINED, fmt_number

@dataclass(frozen=True)
class HeaderView:
    title: str
    spec_name: str
    spec_path: str
    created: str
    fairspec_version: str
    format_version: str
    #: "python 3.11.7, highspy 1.16.0, ..." from model.json's ``software``; older files lack it
    software: str
    spec_sha256: str
    data_sha256: str
    #: what the spec's hash is of: the file's bytes, or (files written before 2026-11-24, which
    #: have no ``spec.normalised``) the text as read
    spec_sha256_label: str = "Spec file SHA-256"
    #: (file, SHA-256) of each model.json the report describes: what a signature on it signs
    model_sha256: tuple[tuple[str, str], ...] = ()


def build(model_doc: dict, model_sha256: tuple[tuple[str, str], ...] = ()) -> HeaderView:
    spec = model_doc.get("spec") or {}
    data = model_doc.get("data") or {}
    name = str(spec.get("name") or "unnamed spec")
    return HeaderView(
        title=f"fairspec audit report: {name}",
        spec_name=name,
        spec_path=str(spec.get("path") or UNDEFINED),
        created=str(model_doc.get("created") or UNDEFINED),
        fairspec_version=str(model_doc.get("fairspec_version") or UNDEFINED),
        format_version=fmt_number(model_doc.get("format_version")),
        software=_software_text(model_doc.get("software")),
        spec_sha256=str(spec.get("sha256") or UNDEFINED),
        data_sha256=str(data.get("sha256") or UNDEFINED),
        spec_sha256_label="Spec file SHA-256" if "normalised" in spec else "Spec SHA-256 (of its text as read)",
        model_sha256=model_sha256,
    )


def _software_text(software) -> str:
    if not isinstance(software, dict) or not software:
        return "not recorded in model.json"
    # Python, then the packages by name: the same text from the training run's own document
    # and from the file it wrote (whose keys are sorted)
    return ", ".join(f"{name} {version}" for name, version in
                     sorted(software.items(), key=lambda item: (item[0] != "python", item[0])))


