"""An outside agent for the Last Will lab (see the lab's README, "Your own agent")."""
