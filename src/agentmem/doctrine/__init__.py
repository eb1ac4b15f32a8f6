"""Team doctrine (docs/design/doctrine.md §Rule file): rule files, their strict reading, their one layout,
the duplicate guard and the lifecycle with its audit commits.

A plain namespace: each name is imported from the module that defines it (``doctrine.model``,
``doctrine.parse``, ``doctrine.render``, ``doctrine.lifecycle``, ``doctrine.drafts``,
``doctrine.versions``, ...), so reading one rule never imports the lifecycle, the drafts or their
git plumbing.
"""
