#!/usr/bin/env bash
# A smoke test of an installed lab, run from outside the source tree (the caller's cwd): the
# package imports without the checkout, the envs register and pass their checks, and the
# `lastwill` command plays an arena, evaluates the shipped reference and trains a few steps.
set -euo pipefail
python - <<'PY'
import sys, warnings
import lastwill_env, agents, training, apps
assert "site-packages" in lastwill_env.__file__, lastwill_env.__file__
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
env = gym.make("lastwill_env:LastWill-v1", num_players=2)
check_env(env.unwrapped, skip_render_check=True)
import pettingzoo
from pettingzoo.test import api_test
import lastwill_env.env
api_test(pettingzoo.make("aec", "lastwill_v1", num_players=3), num_cycles=200)
import torch, numpy
print("smoke: imports and env checks pass; torch", torch.__version__, "numpy", numpy.__version__,
      "gymnasium", gym.__version__)
PY
lastwill --version
lastwill arena -p greedy,random,ppo:reference -n 3 -g 6 --seed 1 --out smoke-arena.jsonl
lastwill eval ppo:reference --num-players 2 --panel greedy --games 4 --workers 1
lastwill train --mode all_seat --run-dir smoke-train --total-steps 2000 --n-games 4 \
    --n-steps 512 --batch-size 256 --num-players 2 --player-weights 1 --eval-every 2000 \
    --eval-games 2 --eval-bots greedy --eval-num-players 2 --torch-threads 1 --no-progress
lastwill train --mode single_seat --run-dir smoke-sb3 --total-steps 256 --n-envs 1 \
    --vec-env dummy --n-steps 128 --batch-size 64 --num-players 2 --player-weights 1 \
    --eval-every 256 --eval-games 2 --eval-bots greedy --eval-num-players 2 --no-progress
echo "smoke: passed"
