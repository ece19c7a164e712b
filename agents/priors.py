"""Where a residual policy's prior bot comes from: the `PriorSource` a policy is handed.

A policy over a prior (`agents.policy.NumpyPolicy`, ``prior`` a scripted bot's name) needs,
besides its weights, three things that only the builder of players knows: whether the name may
be used at all (a registered bot, never a module to import, docs/TRUST.md), the bot itself
(asked at every decision), and the bot's behaviour fingerprint (recorded in the policy file
and checked when it is read, `agents.behaviour`). A `PriorSource` answers them; the network
math calls it and knows nothing of bots or of the registry.

Players are composed where they are built: `agents.registry` hands its source
(`agents.registry.PRIORS`) to the policies of the ``ppo`` and ``mcts`` players it builds, and
installs it here as the default (:func:`use_default`) for policies made or read without one
(a trainer's own `NumpyPolicy`, a viewer reading a file). Standard library only.
"""

from __future__ import annotations

from typing import Any, Protocol


class PriorError(ValueError):
    """A prior that cannot be used: the message says why (the policy adds its name)."""


class PriorSource(Protocol):
    """What a policy over a prior asks of the builder of players."""

    def check(self, prior: str) -> None:
        """Raise `PriorError` if ``prior`` may not be used as a prior (it names code to
        import); an unknown name passes (it is reported when the bot is first built)."""

    def bot(self, prior: str) -> Any:
        """A fresh agent playing ``prior`` (``act(view, legal)``); `PriorError` if none."""

    def fingerprint(self, prior: str) -> str:
        """The behaviour fingerprint of ``prior`` as this lab's code plays it now."""


_DEFAULT: list[PriorSource] = []


def use_default(source: PriorSource) -> None:
    """Make ``source`` the one policies use when they were given none."""
    _DEFAULT[:] = [source]


def default() -> PriorSource:
    """The source installed by :func:`use_default` (`agents.registry` installs its own)."""
    if not _DEFAULT:
        raise PriorError(
            "no source of prior bots is installed: import agents.registry (it installs the "
            "lab's bots) or pass prior_bots= to the policy"
        )
    return _DEFAULT[0]
