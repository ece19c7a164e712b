"""The lab's report tools: the figures and tables the docs quote, each made by one command.

Every tool is a module with a ``main()``, run from the root of a checkout (several read or
write files of it, such as ``docs/results/``) with the lab installed::

    python -m labreports.NAME --help
    python -m labreports.results_doc --check     # exit 1 if docs/RESULTS.md is stale

- ``results_doc``: writes docs/RESULTS.md from the result files in docs/results/ (``--add``
  stores a command's output, ``--check`` says whether the page is current);
- ``reference_tables``, ``bot_ladder``, ``checkpoint_league``, ``search_curve``: strength
  tables played on paired deals (test deals for reported figures);
- ``paired_logs``: two players compared on the same games of two logs;
- ``search_report``, ``sure_share``, ``sample_disagreement``, ``teacher_agreement``: where the
  search and the policy disagree, and how often a policy copies its teacher;
- ``time_to_panel``, ``export_scalars``: a training run's evaluations and scalars;
- ``plot_budget``, ``plot_curve``: the pictures of docs/img/ drawn from results and exports.

Shared among them: ``text`` (percentages and intervals as the tables write them) and
``onethread`` (one BLAS thread per process, imported before numpy). The speed measurements
are scripts of ``benchmarks/``, not part of this package. The tools import the installed lab
(``agents``, ``gamecore``, the games, and ``training`` for the expert samples' reader) and
each other by name; nothing of the lab imports them.
"""
