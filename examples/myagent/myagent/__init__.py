"""An outside agent for the Last Will lab (see the lab's docs/BOTS.md, "Your own agent")."""
