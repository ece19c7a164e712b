"""Expert iteration (`lastwill expert`): the search player (`agents.mcts`) plays itself over
the current network, the network learns the search's choices and the games' results, and the
improved network goes back into the search (`training.expert.loop`)."""

from .config import ExpertConfig, ExpertConfigError
from .loop import ExpertError, expert

__all__ = ["ExpertConfig", "ExpertConfigError", "ExpertError", "expert"]
