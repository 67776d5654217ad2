"""The ``fairspec`` command.

Exit codes: 0 ok · 1 spec or data error · 2 command-line usage error · 3 no usable model
(infeasible, or the time limit passed with no incumbent) · 70 unexpected internal error (one
line here, the traceback in a log file) · 130 interrupted (Ctrl-C) · 143 SIGTERM · 129 SIGHUP.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from pathlib import Path

#: when a command started: this module's import for the process's first command (its start-up,
#: module imports and reading the spec, counts from here), the call of :func:`main` for later ones
_STARTED = [time.perf_counter(), False]

from fairspec import __version__  # noqa: E402
from fairspec.errors import DataError, FairspecError, UnseenCategoryWarning, UsageError, visible  # noqa: E402

EXIT_OK, EXIT_USER, EXIT_USAGE, EXIT_NO_MODEL, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 70, 130


class _ExitCode(Exception):
    def __init__(self, code: int):
        self.code = code


class _Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``docker stop``, a batch scheduler) or SIGHUP (a closed terminal),
    raised as Ctrl-C's ``KeyboardInterrupt`` is, so the same clean-up runs: staged files are
    removed, and a commit under way completes or is put back.  Python's default for both
    had ended the process at once, leaving staging files and orphaned worker processes."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise _Terminated(signum)


@contextlib.contextmanager
def _termination_as_interrupt():
    """Within the block, SIGTERM and SIGHUP raise :class:`_Terminated` where their handler is
    the default one (an ignored signal, under ``nohup``, stays ignored); the handlers are put
    back on leaving."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
                previous[sig] = signal.signal(sig, _raise_terminated)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _ReaderGone(Exception):
    """Standard output is a pipe whose reader has closed it (``fairspec predict m d | head``)."""


class _StandardOutput:
    """The stream the commands print their results to, each write flushed at once: a write that
    fails (a full disk behind ``> file``, a pipe whose reader has gone) is then the user's place,
    reported as such, not an internal error with a crash log (nor a failure left to the exit of
    the interpreter, after the exit code was chosen)."""

    def __init__(self, stream):
        self.stream = stream

    def _descriptor(self) -> int | None:
        """The stream's file descriptor, or None for a stream without one (a StringIO)."""
        try:
            return self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last two
            return None

    def write(self, text: str) -> None:
        try:
            # the plan and the summaries quote names from the spec and the data (predictions
            # are numbers): their control characters shown, as on standard error
            text = visible(text)
            if self.stream is None:
                # Python's sys.stdout when descriptor 1 was closed (`>&-`): an AttributeError on
                # None had become an internal error, exit 70 (found in review)
                raise OSError(errno.EBADF, "standard output is closed")
            fd = self._descriptor()
            if fd is None:
                self.stream.write(text)
                self.stream.flush()
                return
            # written to the descriptor until every byte is out: through Python's text layer a
            # pipe that took part of a long write and closed (`| head`) lost the rest without
            # an error, and the run ended 0 with its output cut (found in review)
            self.stream.flush()
            # encoded as the text layer would have (its encoding and its error handler)
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            try:
                encoded = text.encode(encoding, getattr(self.stream, "errors", None) or "strict")
            except UnicodeEncodeError:
                # a path with a byte that is no UTF-8 (Python holds it as a surrogate), or a
                # name outside an ASCII terminal's encoding: shown escaped, as on standard
                # error, where it had been an internal error after the outputs were written
                encoded = text.encode(encoding, "backslashreplace")
            data = memoryview(encoded)
            while data:
                data = data[os.write(fd, data):]
        except BrokenPipeError:
            raise _ReaderGone() from None
        except OSError as exc:
            from fairspec.pipeline.files import cannot_write

            raise cannot_write("standard output", exc) from None


class _VisibleControls:
    """Standard error with every control character the text holds shown as ``\\xNN``
    (:func:`fairspec.errors.visible`): messages quote column names, paths and JSON keys from
    files someone else wrote.  ``raw`` is the stream itself, for the progress bar's own
    carriage return and line clearing."""

    def __init__(self, stream):
        self.raw = stream

    # standard error holds diagnostics, not outputs: one that cannot be written (full, closed,
    # gone) must not stop a run, whose exit code still says how it ended (a warning there had
    # ended with exit 1 a run that would have written its outputs; found in review)
    def write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self.raw.write(visible(text))

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self.raw.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.raw, "isatty", lambda: False)())


@contextlib.contextmanager
def error_handler(stderr):
    """Map every failure to one message on stderr and one exit code."""
    try:
        yield
    except FairspecError as exc:
        stderr.write(f"{exc}\n")
        raise _ExitCode(exc.exit_code) from None
    except _ReaderGone:
        raise  # not a failure of fairspec's: main() ends the run quietly
    except KeyboardInterrupt as exc:
        by = (f"terminated by {signal.Signals(exc.signum).name}" if isinstance(exc, _Terminated)
              else "interrupted")
        if getattr(exc, "after_commit", False):
            stderr.write(f"fairspec: {by} just after the outputs were written: they are complete, and only the "
                         f"summary of the run was not printed\n")
        else:
            stderr.write(f"fairspec: {by}; no output was written for the unfinished step\n")
        # the shell's convention, 128 + the signal's number: 130 for Ctrl-C, 143 SIGTERM, 129 SIGHUP
        raise _ExitCode(128 + exc.signum if isinstance(exc, _Terminated) else EXIT_INTERRUPTED) from None
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if isinstance(exc, OSError) and exc.filename is not None:
            # a path the system refused (a folder the user may not enter, a name too long):
            # Python's Path.is_dir() and exists() raise these where the readers had not looked
            # for them (found in review), and none of it is fairspec's fault
            stderr.write(f"{exc.filename}: error: cannot use this path ({exc.strerror or exc})\n")
            raise _ExitCode(EXIT_USER) from None
        try:
            fd, log = tempfile.mkstemp(prefix=f"fairspec-crash-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".log")
            with os.fdopen(fd, "w") as fh:
                traceback.print_exc(file=fh)
            where = f"traceback in {log}"
        except OSError:
            # no writable temporary folder: the error is still an internal one, said in one line
            # (it had become a second traceback and exit 1)
            where = "no traceback kept: no temporary folder could be written"
        stderr.write(f"fairspec: internal error: {type(exc).__name__}: {exc} ({where})\n")
        raise _ExitCode(EXIT_INTERNAL) from None


def _progress(args, stderr):
    from fairspec.pipeline.progress import Progress

    return Progress(stream=stderr, quiet=args.quiet)


def _compile(spec_path: str, err):
    return _compile_checked(spec_path, err)[0]


def _compile_with_table(spec_path: str, err):
    """The plan and the data table it was checked against (read once, used for training too);
    the plan's warnings go to ``err``."""
    return _compile_checked(spec_path, err)[:2]


def _compile_checked(spec_path: str, err):
    """:func:`_compile_with_table`, and the kept rows as the checks computed them (training
    reads them: :func:`fairspec.plan.compile.compile_checked`)."""
    from fairspec import load_spec
    from fairspec.data.table import CHECK_SECONDS, READ_SECONDS
    from fairspec.plan.compile import compile_checked

    started = time.perf_counter()
    plan, table, checked = compile_checked(load_spec(spec_path))
    # the checks' share of the compile (metrics.json's timing); reading has its own
    table.attrs[CHECK_SECONDS] = time.perf_counter() - started - table.attrs.get(READ_SECONDS, 0.0)
    if plan.warnings:
        # printed even under -q: -q silences progress, not what the user should know
        err.write(plan.warning_text() + "\n")
    return plan, table, checked


def cmd_check(args, out, err) -> int:
    from fairspec.dsl.ast import written_value

    plan = _compile(args.spec, err)
    d = plan.data
    out.write(f"{args.spec}: ok: spec {plan.name!r}, family {plan.model.family}, "
              f"{len(d.features)} features, groups by {' * '.join(d.protected)}, "
              f"target {d.target} (positive {written_value(d.positive)})\n")
    return EXIT_OK


def _check_emit_path(path: str | None) -> None:
    """Refuse an --emit-model path before the spec is compiled and the model built: a wrong
    suffix or place found only at the end would have cost all of that work."""
    if path is None:
        return
    if not path:
        raise UsageError("fairspec compile: error: argument --emit-model: empty path")
    target = Path(path)
    if target.suffix.lower() not in (".lp", ".mps"):
        raise UsageError(f"fairspec compile: error: argument --emit-model: {path!r}: the suffix chooses the "
                         f"format and must be .lp or .mps")
    from fairspec.models.rule_set import pricing_path
    from fairspec.pipeline.files import check_writable_dir

    check_writable_dir(target.parent, [target.name, pricing_path(target).name])
    if os.path.isfile(target) and not _emitted_model_file(target):
        # the spec, its data or a user's notes under a .lp name had been replaced by the model,
        # exit 0 (found in review); predict's -o refuses its inputs the same way
        raise UsageError(f"fairspec compile: error: argument --emit-model: {path} exists and is not a model file "
                         f"fairspec wrote; it would be overwritten: give another path, or delete it first")
    sibling = pricing_path(target)
    if os.path.isfile(sibling) and not _emitted_model_file(sibling):
        raise UsageError(f"fairspec compile: error: argument --emit-model: the pricing problem goes to {sibling}, "
                         f"which exists and is not a model file fairspec wrote; it would be overwritten: "
                         f"give another path, or delete it first")


#: how the LP and MPS files Pyomo writes begin (what --emit-model wrote before)
_EMITTED_MARKS = (b"\\* Source Pyomo model", b"* Source:     Pyomo MPS Writer")


def _replaceable(path: Path, size: int, written_by_us) -> bool:
    """Whether ``path`` may be replaced by a file fairspec writes under a name it was not
    asked to overwrite: it is empty, or its first ``size`` bytes begin as ``written_by_us``
    recognises, or it cannot be read (writing it then fails, with its own error)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(size)
    except OSError:
        return True
    return head == b"" or written_by_us(head)


def _emitted_model_file(path: Path) -> bool:
    """Whether ``path`` is empty or begins as an LP or MPS file written through Pyomo: the
    pricing file beside an ``--emit-model`` path is a name the user never gave, so only an
    earlier one is replaced."""
    return _replaceable(path, 64, lambda head: head.startswith(_EMITTED_MARKS))


def _emit_model(family, estimator, X, y, groups, target: Path) -> list[Path]:
    """Write the family's model files beside ``target`` together: each into a private
    directory first, then all renamed into place, so a failure (the rule-set pricing problem
    is built after the master is written) never leaves a master without its pricing file."""
    import shutil

    from fairspec.files import new_file_mode
    from fairspec.pipeline.artifact import family_module
    from fairspec.pipeline.files import FileSet, cannot_write

    with FileSet() as files:
        files.make_parents(target)
        try:
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
        except OSError as exc:
            raise cannot_write(target, exc) from None
        try:
            try:
                written = family_module(family.name).emit_model(estimator, X, y, groups, staging / target.name)
            except OSError as exc:
                raise cannot_write(target, exc) from None
            for path in written or [staging / target.name]:
                final = target.parent / Path(path).name
                # write_model gave the mode of a new file in the staging directory: a replaced
                # file keeps its own, as every other output does
                try:
                    os.chmod(path, new_file_mode(final))
                except OSError as exc:
                    raise cannot_write(final, exc) from None
                files.add_file(path, final)
            return files.commit()
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def cmd_compile(args, out, err) -> int:
    from fairspec.registry.families import FAMILIES, implemented_with

    _check_emit_path(args.emit_model)
    plan, table = _compile_with_table(args.spec, err)
    family = FAMILIES[plan.model.family]
    if args.emit_model is not None and not family.solver_backed:
        # the spec is fine; the option does not apply to it (as --no-clock-cap for a family without work limits)
        # "not solver-backed" had been said of a tree, which does solve a MIP under a bound
        grown_first = (" (under a fairness bound it solves a MIP, built from the tree grown in training)"
                       if family.name == "tree" else "")
        raise UsageError(f"fairspec compile: error: argument --emit-model: {args.spec} trains {family.name!r}, "
                         f"which has no optimisation model to write before training{grown_first}; "
                         f"--emit-model works for: {implemented_with('solver_backed')}")
    out.write(plan.describe() + "\n")
    if args.emit_model is not None:
        from fairspec.pipeline.train import prepare_data, training_matrix

        data = prepare_data(plan, _progress(args, err), table)
        criterion = plan.fairness[0] if plan.fairness else None
        _, _, estimator, X, y, groups = training_matrix(plan, data, criterion)
        try:
            written = _emit_model(family, estimator, X, y, groups, Path(args.emit_model))
        except DataError as exc:  # the estimator works on matrices: it knows no file to name
            raise DataError(f"{args.spec}: error: {exc}") from None
        for path in written:
            out.write(f"wrote {path}\n")
        if plan.is_sweep:
            # the files hold one setting's problem: without this, nothing said which
            err.write(f"{args.spec}: note: the spec sweeps {len(plan.fairness)} fairness settings; the model files "
                      f"hold the problem under the first alone (fairness[0] above)\n")
        if plan.model.choice is not None:
            # the value training keeps is known only once the calibration has chosen it
            name, values = plan.model.choice
            err.write(f"{args.spec}: note: the calibration chooses {name} among {len(values)} values in training; "
                      f"the model files hold the problem at the first, {name} {plan.model.params[name]}\n")
    return EXIT_OK


def _without_clock_cap(plan, spec_path: str):
    """``plan`` with ``clock_cap false``, as if the spec said so: a reviewer re-running someone
    else's spec on a slower machine gets the model its work limits give, with the spec (and
    its hash) unchanged.  Refused for families without work limits, as the spec setting is."""
    import dataclasses

    from fairspec.registry.families import FAMILIES, implemented_with

    family = FAMILIES[plan.model.family]
    if not family.work_limited:
        why = ("which uses no solver and has no time limit: no clock can stop it" if "time_limit" not in
               family.solver_settings else "which has no work limits (its time limit can only be a clock)")
        raise UsageError(f"fairspec compile-and-train: error: argument --no-clock-cap: {spec_path} trains "
                         f"{family.name!r}, {why}; families with work limits: {implemented_with('work_limited')}")
    if not plan.solver.clock_cap:  # the spec says so already
        return plan
    return dataclasses.replace(plan, solver=dataclasses.replace(plan.solver, clock_cap=False,
                                                                clock_cap_from_command_line=True))


def run_summary(name: str, metrics_doc: dict) -> str:
    """The line ``compile-and-train`` prints for a trained point: accuracy, the criterion's gap
    with its interval, and the verdict on the bound, on the test rows when there are some."""
    from fairspec.report.format import fmt_gap_against
    from fairspec.report.verdict import INCONCLUSIVE, NOT_MET, clock_caveat, verdict_state

    f = metrics_doc["fairness"]
    test = metrics_doc["test"]
    # under cv the "test" rows are each fold's held-out rows, as the report names them
    held_out = "out-of-fold" if (metrics_doc.get("evaluation") or {}).get("kind") == "cv" else "test"
    acc = (f"{held_out} accuracy {test['accuracy']:.3f}" if test
           else f"train accuracy {metrics_doc['train']['accuracy']:.3f}")
    gap = ""
    if f["criterion"]:
        # the verdict is on test when there is a test split, as in the report; a gap fewer
        # than two groups can show is "not measurable", never a number
        split, achieved, met = ((held_out, f["achieved_test"], f["met_test"]) if test else
                                ("train", f["achieved_train"], f["met_train"]))
        if achieved is None and met is False:  # its measurable part alone exceeds the bound
            gap = f", {f['criterion']} {split} gap not measurable in full, its measurable part above the bound"
        else:
            # 0.050 beside "NOT met", or 0.186 beside "met" a bound of 0.1858, would read as the
            # other verdict: more digits then, as the report prints them
            shown = "not measurable" if achieved is None else fmt_gap_against(achieved, f["bound"], 3)
            gap = f", {f['criterion']} {split} gap {shown}"
        notes = []
        if test and f.get("interval_test"):
            low, high = (fmt_gap_against(end, f["bound"], 3) for end in f["interval_test"])
            notes.append(f"{test['gap_intervals']['level']:.0%} interval {low} to {high}")
        if f["bound"] is not None and met is not None:
            # three states, as the report's verdict: an interval across the bound settles nothing
            state = verdict_state(met, f.get("interval_test") if test else None, f["bound"])
            said = {NOT_MET: "NOT met", INCONCLUSIVE: "INCONCLUSIVE, the interval crosses it"}.get(state, "met")
            notes.append(f"bound {f['bound']:g}: {said}")
        elif test and f["bound"] is not None and f.get("unmeasured_test"):
            groups = ", ".join(f["unmeasured_test"])
            notes.append(f"bound {f['bound']:g}: not measured, no {held_out} rows of the compared kind in {groups}")
        gap += f" ({'; '.join(notes)})" if notes else ""
    # as the report's verdict says it: "met" by a constant the clock left had read as the method's
    cut = clock_caveat(metrics_doc)
    constant = metrics_doc.get("constant_model")
    said = f" [constant model: predicts {constant['predicts']} for every row]" if constant else ""
    return f"{name}: {acc}{gap}{'' if cut is None else f' [{cut[0]}]'}{said}"


def cmd_compile_and_train(args, out, err) -> int:
    from fairspec import write_outputs
    from fairspec.pipeline.outputs import check_output_dir

    if args.output is not None and not args.output:
        raise UsageError(f"fairspec compile-and-train: error: argument {args.output_spelling}: empty directory name")
    if args.output_spelling == "--out" and not args.quiet:
        err.write("fairspec compile-and-train: note: --out is now spelt -o/--output, as for predict; "
                  "--out still works\n")
    progress = _progress(args, err)
    plan, table, checked = _compile_checked(args.spec, err)
    if args.no_clock_cap:
        plan = _without_clock_cap(plan, args.spec)
    out_dir = Path(args.output) if args.output else plan.output_dir
    # a place the outputs cannot go is found now, not after a training run of minutes
    check_output_dir(out_dir, max(1, len(plan.fairness)),
                     inputs={"spec": plan.spec_path, "data": plan.data.path})
    from fairspec.parallel import use_scheduler

    if args.jobs is not None and args.jobs == 0:
        raise UsageError("fairspec compile-and-train: error: argument --jobs: 0: give 1 or more processes, or -1 "
                         "for one per core")
    from fairspec.pipeline.train import train  # (imported here, its imports count as start-up)
    from fairspec.data.table import CHECK_SECONDS, READ_SECONDS, STARTUP_SECONDS

    # metrics.json's timing starts with what came before the data was read and checked
    table.attrs[STARTUP_SECONDS] = max(0.0, time.perf_counter() - _STARTED[0] - table.attrs.get(READ_SECONDS, 0.0)
                                       - table.attrs.get(CHECK_SECONDS, 0.0))
    # training is handed this function's only references to the table and the checked rows: it
    # drops the frame before the fits when nothing after reads it (fairspec.pipeline.train.EncodedRows)
    handed = {"table": table, "checked": checked}
    del table, checked
    with use_scheduler(args.scheduler):
        result = train(plan, progress, handed.pop("table"), n_jobs=args.jobs or 1, checked=handed.pop("checked"))
    progress.step(f"writing {out_dir}")
    written = write_outputs(result, out_dir)
    for point in result.points:
        constant = point.metrics_doc.get("constant_model")
        if constant:
            # never a plain success: the gaps of a constant model are 0 whatever it does to the groups
            where = "" if point.criterion is None or not plan.is_sweep else f" under {point.criterion.label()}"
            err.write(f"{plan.spec_filename}: warning: the model{where} is constant: it predicts {constant['predicts']} "
                      f"({constant['class']}) for every one of its {constant['training_rows']} training rows, so its "
                      f"gaps are 0 whatever it does to the groups (a bound too tight for the data, a penalty too "
                      f"strong, or a time limit too short to find rules, may leave one)\n")
        out.write(run_summary(plan.name, point.metrics_doc) + "\n")
    out.write(f"wrote {', '.join(str(p) for p in written if p.name in ('report.html', 'model.json', 'metrics.json', 'sweep.json') and p.parent == out_dir)}\n")
    if result.failed:
        # the points that trained are written; the run still did not give every model asked for
        for failure in result.failed:
            err.write(f"{failure.message}\n")
        err.write(f"{plan.spec_filename}: {len(result.failed)} of {len(plan.fairness)} sweep settings gave no usable "
                  f"model; the other {len(result.points)} are written, and sweep.json and the report list the "
                  f"failed ones\n")
        return EXIT_NO_MODEL
    return EXIT_OK


#: the columns of the file ``fairspec predict`` writes; its first line, which ``-o`` checks
#: before replacing a file, is spelt from them
PREDICTION_COLUMNS = ("prediction", "score")
PREDICTION_HEADER = ",".join(PREDICTION_COLUMNS)


def _replaceable_predictions(path: Path) -> bool:
    """Whether ``path`` is empty or starts as a file ``fairspec predict`` writes."""
    return _replaceable(path, len(PREDICTION_HEADER) + 2,
                        lambda head: head.split(b"\n")[0].rstrip(b"\r") == PREDICTION_HEADER.encode())


def _prediction_destination(output: str) -> tuple[Path, bool]:
    """Where ``-o OUT`` writes, and whether into the file itself rather than by a rename.

    A device or a pipe (``/dev/null``, ``/dev/stdout`` in a pipeline, a named pipe) is written
    into, as a shell's ``>`` would: a temporary file renamed over it replaced the device itself
    (as root, ``/dev/null`` became a file of predictions), and a user who may not create files in
    ``/dev`` could not write there at all.  A symbolic link to a file is followed, so the link
    stays a link and its target is replaced; a link that resolves to no path (``/proc`` names a
    pipe ``pipe:[...]``) is written through."""
    given = Path(output)
    if given.exists() and not given.is_file():
        return given, True
    if given.is_symlink():
        real = Path(os.path.realpath(given))
        if given.exists() and not real.exists():
            return given, True
        return real, False
    return given, False


def cmd_predict(args, out, err) -> int:
    from fairspec.files import write_atomic
    from fairspec.pipeline.files import OutputError, cannot_write, check_writable_dir

    if args.output == "-":
        # the usual spelling of standard output (`sort -o -`, `curl -o -`); a file named "-"
        # would be one no later command could name without "./-"
        args.output = None
    if args.output is not None:
        # checked before the model is loaded and the data read and scored
        if not args.output:
            raise UsageError("fairspec predict: error: argument -o/--output: empty path")
        target = Path(args.output)
        model_file = Path(args.model) / "model.json" if os.path.isdir(args.model) else Path(args.model)
        # the run's other outputs beside the model too: a report whose metrics.json was
        # overwritten by predictions can no longer be rendered or checked against its model
        run_files = [("the run's", model_file.parent / n) for n in ("metrics.json", "report.html", "sweep.json")]
        for name, source in [("the data", Path(args.data)), ("the model", model_file)] + run_files:
            if os.path.exists(target) and os.path.exists(source) and os.path.samefile(target, source):
                raise UsageError(f"fairspec predict: error: argument -o/--output: {args.output} is {name} "
                                 f"file {source}; it would be overwritten")
        # Path() drops a trailing slash: "out.csv/" names a directory the user meant, not a file
        if os.path.isdir(target) or args.output.endswith(("/", os.sep)):
            raise OutputError(f"{args.output}: error: cannot write (it names a directory; give a file name)")
        # any other file -o names (the run's spec, say, or a data set under another name) is
        # someone's work: only an earlier prediction file, or an empty one, is replaced
        if os.path.isfile(target) and not _replaceable_predictions(target):
            raise UsageError(f"fairspec predict: error: argument -o/--output: {args.output} exists and is not "
                             f"a prediction file (its first line is not '{PREDICTION_HEADER}'); it would be "
                             "overwritten: give another path, or delete it first")
        destination, in_place = _prediction_destination(args.output)
        if not in_place:
            check_writable_dir(destination.parent, [destination.name])
    from fairspec.pipeline.artifact import LoadedModel

    # read for scoring: a family with a scorer (the trees) scores without importing
    # scikit-learn and SciPy, a second and a half of the command's start
    model = LoadedModel.read(args.model, scoring_only=True)
    if args.chunk_rows is not None and args.chunk_rows < 1:
        raise UsageError(f"fairspec predict: error: argument --chunk-rows: {args.chunk_rows}: give a number of "
                         f"rows, 1 or more")
    if args.metrics is not None:
        _check_metrics_path(args, target if args.output else None)
    # the file is scored in frames of --chunk-rows rows, its predictions written as they come
    # into a temporary file (renamed into place, or copied to standard output, a device or a
    # pipe at the end), so memory holds one frame whatever the file's size and nothing is
    # half-written when a later row is refused; a header with no rows below it is a batch
    # with nothing in it today: its predictions are the header alone
    from fairspec.pipeline.scoring import CHUNK_ROWS, ScoredFile, prediction_text, score_chunks

    summary = ScoredFile()
    chunks = score_chunks(model, Path(args.data), source=args.data, chunk_rows=args.chunk_rows or CHUNK_ROWS,
                          metrics=args.metrics is not None, summary=summary)
    spool = _SpooledPredictions(destination if args.output and not in_place else None)
    with spool as fh:
        # every digit (the shortest text that reads back as the same float): six had differed from
        # the Python API's scores by up to 5e-7 and made ties that change an AUC recomputed from the
        # file, and could print 0.5 beside a prediction of 1 (found in review)
        _spool_write(fh, args.output, PREDICTION_HEADER + "\n")
        for labels, scores in chunks:
            _spool_write(fh, args.output, prediction_text(labels, scores))
        for warning in summary.warnings(model, args.data):
            err.write(f"{warning.source}: warning: {warning.detail}\n")
        metrics_text = None if args.metrics is None else _metrics_text(args, model, summary)
        if args.output and not in_place:
            spool.commit()
        elif args.output:
            try:
                with open(destination, "w", encoding="utf-8", newline="\n") as target_fh:
                    _copy_text(fh, target_fh.write)
            except OSError as exc:
                raise cannot_write(args.output, exc) from None
        else:
            _copy_text(fh, out.write)
    if metrics_text is not None:
        try:
            write_atomic(Path(args.metrics), metrics_text)
        except OSError as exc:
            raise cannot_write(args.metrics, exc) from None
        err.write(f"wrote the metrics of {summary.rows} predictions to {args.metrics}\n")
    if args.output:
        err.write(f"wrote {summary.rows} predictions to {args.output}\n")
    return EXIT_OK


def _check_metrics_path(args, predictions) -> None:
    """Refuse a ``--metrics`` path before scoring: empty, a directory, one of the inputs or the
    predictions file, or an existing file that is not metrics ``fairspec predict`` wrote."""
    path = args.metrics
    if not path:
        raise UsageError("fairspec predict: error: argument --metrics: empty path")
    target = Path(path)
    if os.path.isdir(target) or path.endswith(("/", os.sep)):
        from fairspec.pipeline.files import OutputError

        raise OutputError(f"{path}: error: cannot write (it names a directory; give a file name)")
    model_file = Path(args.model) / "model.json" if os.path.isdir(args.model) else Path(args.model)
    for name, source in [("the data", Path(args.data)), ("the model", model_file)]:
        if os.path.exists(target) and os.path.exists(source) and os.path.samefile(target, source):
            raise UsageError(f"fairspec predict: error: argument --metrics: {path} is {name} file {source}; it "
                             f"would be overwritten")
    if predictions is not None and os.path.abspath(target) == os.path.abspath(predictions):
        raise UsageError(f"fairspec predict: error: argument --metrics: {path} is the predictions file (-o)")
    if os.path.isfile(target) and not _replaceable(target, 64, lambda head: METRICS_FORMAT.encode() in head):
        raise UsageError(f"fairspec predict: error: argument --metrics: {path} exists and is not a metrics file "
                         f"fairspec predict wrote; it would be overwritten: give another path, or delete it first")
    from fairspec.pipeline.files import check_writable_dir

    check_writable_dir(target.parent, [target.name])


#: the ``format`` of the file ``fairspec predict --metrics`` writes (its first bytes, which a
#: later run checks before replacing the file)
METRICS_FORMAT = "fairspec-predict-metrics"


def _metrics_text(args, model, summary) -> str:
    """The ``--metrics`` document: the predictions measured against the file's target and
    groups, as a test split's block of metrics.json (its gap intervals drawn under the
    model's training seed)."""
    import json

    from fairspec.data.table import file_sha256

    if summary.rows == 0:
        raise DataError(f"{args.data}: error: --metrics: the file has no rows to measure the predictions on")
    schema = model.doc["schema"]
    seed = (model.doc.get("training") or {}).get("seed")
    block = summary.metrics.block(seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else 0)
    doc = {"format": METRICS_FORMAT, "format_version": 1,
           "model": str(args.model), "data": str(args.data), "data_sha256": file_sha256(Path(args.data)),
           "target": schema["target"], "protected": schema["protected"],
           "fairness": model.doc.get("fairness"),
           # the AUC and ABROCA need the table of distinct scores, dropped past a size (a model of
           # continuous scores on many rows): then they are null, and this says why
           "scores_dropped": summary.metrics.scores_dropped,
           "test": block}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


class _SpooledPredictions:
    """A temporary file the predictions are written to: beside ``destination`` (renamed over it
    by :meth:`commit`), or in the temporary folder (copied out by the caller); removed on
    leaving unless committed."""

    def __init__(self, destination: Path | None):
        self.destination = destination
        self.name = None
        self.committed = False

    def __enter__(self):
        from fairspec.pipeline.files import cannot_write

        try:
            if self.destination is not None:
                fd, self.name = tempfile.mkstemp(prefix=f".{self.destination.name}.", suffix=".tmp",
                                                 dir=self.destination.parent)
                self.fh = os.fdopen(fd, "w+", encoding="utf-8", newline="\n")
            else:
                self.fh = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise cannot_write(self.destination or "a temporary file", exc) from None
        return self.fh

    def commit(self) -> None:
        from fairspec.files import new_file_mode
        from fairspec.pipeline.files import cannot_write

        try:
            self.fh.flush()
            os.fsync(self.fh.fileno())
            os.chmod(self.name, new_file_mode(self.destination))
            os.replace(self.name, self.destination)
        except OSError as exc:
            raise cannot_write(self.destination, exc) from None
        self.committed = True

    def __exit__(self, *exc_info):
        self.fh.close()
        if self.name is not None and not self.committed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.name)
        return False


def _spool_write(fh, output, text: str) -> None:
    from fairspec.pipeline.files import cannot_write

    try:
        fh.write(text)
    except OSError as exc:
        raise cannot_write(output or "a temporary file", exc) from None


def _copy_text(fh, write, block: int = 1 << 24) -> None:
    """The spooled text, from its start, through ``write`` in blocks."""
    fh.flush()
    fh.seek(0)
    for text in iter(lambda: fh.read(block), ""):
        write(text)


def cmd_report(args, out, err) -> int:
    from fairspec.pipeline.outputs import rerender_report, write_report_file

    if len(args.dir) > 1 and not args.output:
        raise UsageError("fairspec report: error: several runs are compared in one new file: name it with -o FILE")
    if args.output is None and (args.gap is not None or args.tolerance is not None):
        raise UsageError("fairspec report: error: --gap and --tolerance apply to a comparison (DIR DIR ... -o FILE)")
    if args.output is None:
        path = rerender_report(Path(args.dir[0]))
    else:
        path = write_report_file([Path(d) for d in args.dir], Path(args.output), args.gap, args.tolerance)
    out.write(f"wrote {path}\n")
    return EXIT_OK


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that an unknown option given without a command is named.

    argparse checks for the missing command before it looks at unknown options, so
    ``fairspec --bogus`` said "the following arguments are required: COMMAND", which sends
    the user looking for a command they did not mean to leave out."""

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _print_message(self, message, file=None):
        """argparse's, except that a failed write of ``--help`` or ``--version`` to standard
        output is raised, not dropped: ``fairspec --version > /dev/full`` had ended 0 with
        nothing written (found in review).  Standard error's failures are still dropped: the
        usage error they would carry has nowhere else to go."""
        if not message:
            return
        if file is None:  # argparse passes sys.stdout, None when descriptor 1 is closed (>&-)
            raise OSError(errno.EBADF, "standard output is closed")
        if file is sys.stderr:
            super()._print_message(message, file)
            return
        file.write(message)
        file.flush()

    def error(self, message):
        if message.startswith("the following arguments are required: COMMAND"):
            unknown = [a for a in getattr(self, "_given", []) if a.startswith("-") and a != "-"
                       and a.split("=")[0] not in self._option_string_actions]
            if unknown:
                message = f"unrecognized arguments: {' '.join(unknown)}"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fairspec", description="Compile fair-ML specs into audited models.")
    parser.add_argument("--version", action="version", version=f"fairspec {__version__}")
    # -q before the command too (`fairspec -q check x.fair`): the subcommand's own default must
    # not reset it, hence SUPPRESS there
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name, func, help_):
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no progress on stderr")
        p.set_defaults(func=func)
        return p

    p = add("check", cmd_check, "parse a spec and check it against its data")
    p.add_argument("spec", type=_path_argument("a .fair file"))
    p = add("compile", cmd_compile, "print the training plan of a spec")
    p.add_argument("spec", type=_path_argument("a .fair file"))
    p.add_argument("--emit-model", metavar="PATH",
                   help="rule_set only: write the FairCG master problem to PATH and its pricing problem "
                        "beside it as NAME.pricing.SUFFIX; the suffix, .lp or .mps, chooses the format")
    p = add("compile-and-train", cmd_compile_and_train, "train a spec; write model.json, metrics.json, report.html")
    p.add_argument("spec", type=_path_argument("a .fair file"))
    p.add_argument("-o", "--output", metavar="DIR", action=_OutputOption,
                   help="output directory (default: the spec's output, else out/<spec name>)")
    # the spelling before predict's and this one were made one; kept working, with a note
    p.add_argument("--out", dest="output", metavar="DIR", action=_OutputOption, help=argparse.SUPPRESS)
    p.set_defaults(output_spelling=None)
    p.add_argument("--no-clock-cap", action="store_true",
                   help="train as if the spec said solver { clock_cap false }: only work limits stop the "
                        "stages, so a slower machine gives the same model, later (rule_set and tree)")
    p.add_argument("--jobs", metavar="N", type=int, default=None,
                   help="fit the cross-validation folds and sweep points in N local processes side by side "
                        "(-1: one per core); the models are the serial run's")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="fit them on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786; default: "
                        "the environment variable FAIRSPEC_SCHEDULER); needs pip install 'fairspec[dask]'")
    p = add("predict", cmd_predict, "score a CSV with a trained model: columns prediction (1 = the positive class) "
                                     "and score (0-1, higher for the positive class; a probability estimate only "
                                     "for the baseline and unrelabelled trees, see README)")
    p.add_argument("model", type=_path_argument("a model.json or its directory"), help="model.json (or its directory)")
    p.add_argument("data", type=_path_argument("a CSV file"), help="CSV file with the model's feature columns")
    p.add_argument("-o", "--output", metavar="OUT", action=_OutputOption,
                   help="CSV to write (default, or -: standard output)")
    p.set_defaults(output_spelling=None)
    p.add_argument("--metrics", metavar="JSON",
                   help="also measure the predictions against the file's target and protected columns, and write "
                        "the metrics (a test block of metrics.json, with its gap intervals) to JSON")
    p.add_argument("--chunk-rows", metavar="N", type=int, default=None,
                   help="read and score the file N rows at a time (default 250000): memory holds one chunk")
    p = add("report", cmd_report, "re-render DIR/report.html from DIR's model.json and metrics.json; with several "
                                  "DIRs and -o FILE, compare the runs in one report")
    p.add_argument("dir", nargs="+", type=_path_argument("a run's directory"))
    p.add_argument("-o", "--output", metavar="FILE", type=_path_argument("the report file to write"),
                   help="write the report here instead of DIR/report.html (required to compare several runs)")
    p.add_argument("--gap", metavar="NAME", help="the gap runs are compared on (default: the criterion they declare)")
    p.add_argument("--tolerance", metavar="ACC", type=float,
                   help="accuracy a less discriminatory alternative may give up (default 0.01)")
    return parser


class _OutputOption(argparse.Action):
    """Stores the output path and the spelling used (``-o``, ``--output`` or the old ``--out``),
    so a message names the option as the user wrote it."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.output_spelling = option_string


def _path_argument(what: str):
    """An argparse type: a path as given, where an empty one is a usage error naming ``what`` to
    give.  An empty path had read as "." (the current directory) in some commands and as
    ``model.json`` in another (found in review)."""
    def path(text: str) -> str:
        if not text:
            raise argparse.ArgumentTypeError(f"empty path: name {what}")
        return text

    path.__name__ = "path"  # argparse names the type in some messages
    return path


def main(argv: list[str] | None = None, stdout=None, stderr=None) -> int:
    if _STARTED[1]:
        _STARTED[0] = time.perf_counter()
    _STARTED[1] = True
    out = stdout or sys.stdout  # None when descriptor 1 is closed: the commands' writes say so
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            # descriptor 1 or 2 closed (`>&-`, `2>&-`): Python then has no sys.stdout or
            # sys.stderr, and Pyomo's capture of the solver's log flushes both, which had
            # failed every solver-backed fit (exit 70, nothing written)
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - for the life of the process
    err = _VisibleControls(stderr or sys.stderr)
    parser = build_parser()
    try:
        # --help and --version print to the command's standard output, as every result does
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help / --version exit 0, usage errors exit 2
        return int(exc.code or 0)
    except BrokenPipeError:  # `fairspec --help | head -1`: the reader has what it wanted
        return EXIT_USER
    except (OSError, ValueError) as exc:  # ValueError: a closed file
        from fairspec.pipeline.files import cannot_write

        with contextlib.suppress(OSError, ValueError):
            err.write(f"{cannot_write('standard output', exc if isinstance(exc, OSError) else OSError(str(exc)))}\n")
        return EXIT_USER
    try:
        with error_handler(err), _termination_as_interrupt():
            return args.func(args, _StandardOutput(out), err)
    except _ExitCode as exc:
        return exc.code
    except _ReaderGone:
        # as `cat` or `grep` piped into `head`: the reader has what it wanted, so no message; the
        # output is not complete, and the exit code says so
        if out is sys.__stdout__:
            # Python flushes stdout once more at exit, into the closed pipe, and prints that
            # error: what is left goes nowhere instead
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        return EXIT_USER


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
