"""What the spec language names and every stage reads: the fairness criteria and the model
families.

These tables sit below the pipeline's stages, so the checker (``dsl``), the compiler
(``plan``), the models, the metrics and the report all read them downwards; none of them
imports a stage.
"""
