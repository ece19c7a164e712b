"""Fitting a policy's critic to predict the game's result (`lastwill value-fit`): self-play
games of the policy (`games`), the critic learned on their outcomes and its calibration
against them (`fit`), the run (`run`) and its settings (`config`); the command is
`apps.valuefit_cli`."""
