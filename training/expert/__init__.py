"""Expert iteration (`lastwill expert`, `lastwill train --mode expert`): the search player
(`agents.mcts`) plays itself over the current network, the network learns the search's choices
and the games' results, and the improved network goes back into the search
(`training.expert.loop`), a trainer of the shared run loop (`training.expert.trainer`)."""

from .config import ExpertConfig, ExpertConfigError
from .loop import ExpertError
from .trainer import expert

__all__ = ["ExpertConfig", "ExpertConfigError", "ExpertError", "expert"]
