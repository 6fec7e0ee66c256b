"""Reading a shell command the way bash will run it.

Two questions are answered here, both from the tree-sitter-bash syntax tree, never from
patterns over the command text:

- ``analysis.analyse_command``: is this command read-only, so it may run without asking?
  Only a script made of plain simple commands (literal words, no expansions, no
  redirections), joined by ``&&``, ``||``, ``;`` or ``|``, whose every command is on the
  read-only list with safe options, qualifies. Anything the reader does not fully
  understand is "not read-only" and the user is asked: a wrong "no" costs a keypress, a
  wrong "yes" runs code.
- ``reach.reachable_commands``: every simple command that could run, anywhere in the tree
  (inside substitutions, subshells, functions, after ``sudo``/``env``/``xargs``, inside
  ``bash -c '...'``), for deny rules, which must err the other way.

Known allowlist bypasses (CVE-2025-66032 and friends; tests/policy_corpus holds them with
their sources) shape the checks: options that run programs (``rg --pre``, ``sort
--compress-program``, ``man --html``, ``git -c``), sed beyond ``-n`` with ``p`` commands,
abbreviated long options (``--out`` is ``--output`` to getopt, ``--upload-pa`` is
``--upload-pack`` to git), wildcards that expand into options, and characters
that tree-sitter and bash split differently (a carriage return is whitespace to the
parser but part of a word to bash) are all refused. So are invisible characters (zero-width,
bidi controls, odd spaces): what the user reads in the approval must be what bash runs.

The modules, from the bottom up: ``syntax`` (parsing, literal words, the plain script
shape), ``checks`` (``Problem`` and the option checkers), ``sed`` and ``git`` (their
checks), ``programs`` (the program tables), ``paths`` (words that name files),
``grants`` (the "always" rule), ``analysis`` (the read-only verdict), ``reach`` (every
command that could run, for deny rules). Import from the module that holds a name.
"""
