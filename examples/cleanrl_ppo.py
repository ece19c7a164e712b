"""PPO with action masking on Last Will's single-seat env, in one file (CleanRL's style).

Everything is here: the arguments, the env (`gymnasium.make("LastWill-v1", ...)` at 2
players, one learner seat; the other seat's bot drawn per game from `--opponents`, by default
`greedy`, `speculator` and `random`), a small torch actor-critic whose illegal actions get a
large negative logit (the env's `info["action_mask"]`), GAE, the clipped PPO loss and a plain
loop. No stable-baselines3, no lab trainer. The training log's win rate is against that mix.
At the end it plays `--eval-games` fresh games against `--eval-opponent` (`greedy`), the policy
playing its most likely legal action (`--no-eval-argmax`: sampling, as it trained), and prints
the win rate with its Wilson 95% interval (chance is 50% at 2 players).

    python examples/cleanrl_ppo.py                        # the default budget
    python examples/cleanrl_ppo.py --total-steps 4096     # a smoke run (seconds)
    python examples/cleanrl_ppo.py --help                 # every argument

The settings are those of the lab's quick recipe (training/configs/quick.toml): learning rate
1e-3, gamma 0.99, two hidden layers of 64, rollouts of 4,096 decisions (16 games x 256) cut
into minibatches of 1,024, 4 epochs. A mix of opponents gives a fresh policy games it can win
(against `random`) as well as the strong play of `greedy` to learn from.

Reward: the env's terminal reward (+1 for a win, -1 for a loss at 2 players) plus
potential-based shaping (`--shaping`, Ng et al. 1999, which leaves the optimal policy
unchanged): each step also earns `shaping * (gamma * phi(next) - phi(now))` with
phi = (the opponent's total - the learner's total) / 100, a total being money plus property
value (docs/RULES.md §8: the least total wins). Without it a fresh policy, which never beats
`greedy`, sees only losses and has nothing to climb.

Kickstarting (Schmitt et al. 2018, `--teacher`): at every learner decision the teacher bot is
asked what it would play from the learner's view, and the loss adds `kick` times the
cross-entropy of the policy towards that choice, `kick` decaying linearly from
`--kickstart-coef` to 0 over the first `--kickstart-frac` of the run. The policy starts out
playing like the teacher and PPO then improves on it (`--teacher ""` turns it off).

Measured (`--torch-threads 1`, one core of a 2-core machine, the default budget of 400,000
steps in about 3 minutes, arg-max play against `greedy` in 400 fresh games at the end): seed 1
0.618 (247/400, Wilson 95% 0.569-0.664), seed 2 0.680 (272/400, 0.633-0.724): both seeds beat
`greedy` (lower bounds above 0.5).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, fields

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn

import lastwill_env.single_seat  # noqa: F401 - registers LastWill-v1 with gymnasium
from agents.registry import PlayerSpecError, make_agent
from lastwill_env.engine import player_view
from lastwill_env.engine.game import GAME_OVER, property_value


@dataclass
class Args:
    """The run's settings; each is a command-line flag (`--total-steps 2048`)."""

    seed: int = 1
    total_steps: int = 400_000  # learner decisions in total
    num_envs: int = 16  # games played side by side
    num_steps: int = 256  # decisions per game slot per rollout
    learning_rate: float = 1e-3
    anneal_lr: bool = True  # decay the learning rate linearly to 0
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4  # of 1,024 decisions each with the defaults
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    shaping: float = 1.0  # weight of the potential-based shaping (0: off)
    hidden: int = 64  # width of the two hidden layers of the actor and of the critic
    # the bots of the other seat in training, one drawn per game (`lastwill arena` player specs)
    opponents: str = "greedy,speculator,random"
    eval_opponent: str = "greedy"  # the bot of the final evaluation
    teacher: str = "greedy"  # kickstarting teacher asked at every learner decision ("": none)
    kickstart_coef: float = 1.0  # weight of the cross-entropy towards the teacher's choice
    kickstart_frac: float = 0.25  # share of the run over which that weight decays to 0
    eval_games: int = 400  # games against `eval_opponent` at the end
    eval_argmax: bool = True  # play the most likely action there (--no-eval-argmax: sample)
    save: str = ""  # write the trained network's state_dict here (torch.save), if given
    torch_threads: int = 1


def parse_args(argv: list[str] | None = None) -> Args:
    """`Args` from the command line: one flag per field, `--no-NAME` for booleans."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for f in fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type).split("'")[-1]]
            parser.add_argument(flag, type=kind, default=f.default)
    args = Args(**vars(parser.parse_args(argv)))
    if args.total_steps < args.num_envs * args.num_steps:
        parser.error(
            f"--total-steps {args.total_steps} is less than one rollout "
            f"(--num-envs x --num-steps = {args.num_envs * args.num_steps})"
        )
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        parser.error("--num-minibatches must divide --num-envs x --num-steps")
    for flag, specs in (
        ("--opponents", args.opponents),
        ("--eval-opponent", args.eval_opponent),
        ("--teacher", args.teacher or "greedy"),
    ):
        for spec in specs.split(","):
            try:
                make_agent(spec.strip(), seed=0)
            except PlayerSpecError as e:
                parser.error(f"{flag} {specs!r}: {e}")
    return args


def potential(env: gym.Env) -> float:
    """phi of the learner's seat: (the others' mean total - its own total) / 100; 0 at the end."""
    base = env.unwrapped
    s = base.game
    if s.phase == GAME_OVER:
        return 0.0
    totals = [s.money[p] + property_value(s, p) for p in range(s.n)]
    me = totals[base.seat]
    return ((sum(totals) - me) / (s.n - 1) - me) / 100.0


def teacher_choice(teacher, env: gym.Env) -> int:
    """The teacher bot's action in the learner's seat, from the learner's own view."""
    base = env.unwrapped
    return int(teacher.act(player_view(base.game, base.seat), base.game.legal_actions()))


def make_env(args: Args, seed: int, opponents: str | None = None) -> gym.Env:
    """One learner seat at 2 players; the other seat's bot is drawn per game, uniformly, from
    the comma-separated specs `opponents` (default `args.opponents`), each with its own seed."""
    specs = (args.opponents if opponents is None else opponents).split(",")
    bots = [make_agent(spec.strip(), seed=seed + k) for k, spec in enumerate(specs)]

    def draw(num_players: int, rng: np.random.Generator) -> list:
        return [bots[int(rng.integers(len(bots)))] for _ in range(num_players - 1)]

    return gym.make("LastWill-v1", num_players=2, opponents_fn=draw)


def layer(n_in: int, n_out: int, std: float = math.sqrt(2)) -> nn.Linear:
    """A linear layer with CleanRL's orthogonal initialisation."""
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs; illegal actions get a logit of -1e8."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, 1, 1.0),
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, n_actions, 0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(x).masked_fill(~mask, -1e8)

    def get_action_and_value(self, x, mask, action=None):
        """Sample (or score `action`) from the masked policy: action, log-prob, entropy, value
        and the masked logits."""
        logits = self.masked_logits(x, mask)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(x), logits


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a win rate (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(agent: Agent, args: Args, games: int) -> tuple[int, int]:
    """Wins in `games` fresh games against `args.opponent`, the policy sampling its actions
    (`--eval-argmax`: always its most likely action)."""
    env = make_env(args, seed=10_000 + args.seed, opponents=args.eval_opponent)
    wins = 0
    for g in range(games):
        obs, info = env.reset(seed=1_000_000 + 1_000 * args.seed + g)
        done = False
        while not done:
            mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            with torch.no_grad():
                logits = agent.masked_logits(torch.as_tensor(obs), mask)
            if args.eval_argmax:
                action = int(logits.argmax())
            else:
                action = int(torch.distributions.Categorical(logits=logits).sample())
            obs, reward, done, _, info = env.step(action)
        wins += int(info["winner"] == info["seat"])
    return wins, games


def gae(rewards, dones, values, next_value, next_done, gamma, lam):
    """Generalised advantage estimates and returns over a rollout of shape (steps, envs)."""
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(next_value)
    for t in reversed(range(rewards.shape[0])):
        if t == rewards.shape[0] - 1:
            not_done, nxt = 1.0 - next_done, next_value
        else:
            not_done, nxt = 1.0 - dones[t + 1], values[t + 1]
        delta = rewards[t] + gamma * nxt * not_done - values[t]
        last = delta + gamma * lam * not_done * last
        advantages[t] = last
    return advantages, advantages + values


def ppo_update(agent, optimizer, batch, args: Args, kick: float) -> dict[str, float]:
    """`update_epochs` passes of clipped PPO over shuffled minibatches of `batch`, plus `kick`
    times the cross-entropy towards the teacher's choices (kickstarting)."""
    obs, masks, actions, logprobs, advantages, returns, teacher = batch
    size = obs.shape[0]
    mb = size // args.num_minibatches
    stats: dict[str, float] = {}
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size, mb):
            idx = order[start : start + mb]
            _, new_logprob, entropy, value, logits = agent.get_action_and_value(
                obs[idx], masks[idx], actions[idx]
            )
            ratio = (new_logprob - logprobs[idx]).exp()
            adv = advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(
                -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
            ).mean()
            v_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            if kick > 0:
                loss = loss + kick * nn.functional.cross_entropy(logits, teacher[idx])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            stats = {
                "pg_loss": pg_loss.item(),
                "v_loss": v_loss.item(),
                "entropy": entropy.mean().item(),
            }
    return stats


def main(argv: list[str] | None = None) -> float:
    """Train, evaluate and print; returns the final win rate against the opponent."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    envs = [make_env(args, seed=args.seed * 100 + i) for i in range(args.num_envs)]
    obs_size = envs[0].observation_space.shape[0]
    n_actions = int(envs[0].action_space.n)
    agent = Agent(obs_size, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs_buf = torch.zeros(shape + (obs_size,))
    mask_buf = torch.zeros(shape + (n_actions,), dtype=torch.bool)
    actions, logprobs = torch.zeros(shape, dtype=torch.long), torch.zeros(shape)
    teacher_actions = torch.zeros(shape, dtype=torch.long)
    teacher = make_agent(args.teacher, seed=args.seed) if args.teacher else None
    rewards, dones, values = torch.zeros(shape), torch.zeros(shape), torch.zeros(shape)

    resets = [env.reset(seed=args.seed * 1_000 + i) for i, env in enumerate(envs)]
    next_obs = torch.as_tensor(np.stack([o for o, _ in resets]))
    next_mask = torch.as_tensor(np.stack([i["action_mask"] for _, i in resets]), dtype=torch.bool)
    next_done = torch.zeros(args.num_envs)
    phis = [potential(env) for env in envs]
    num_updates = args.total_steps // (args.num_envs * args.num_steps)
    step, wins, games, start = 0, 0, 0, time.time()
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (update - 1) / num_updates)
        for t in range(args.num_steps):
            step += args.num_envs
            obs_buf[t], mask_buf[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value, _ = agent.get_action_and_value(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            new_obs, new_masks, new_dones = [], [], []
            for i, env in enumerate(envs):
                if teacher is not None:
                    teacher_actions[t, i] = teacher_choice(teacher, env)
                o, r, term, trunc, info = env.step(int(action[i]))
                phi = potential(env)
                rewards[t, i] = r + args.shaping * (args.gamma * phi - phis[i])
                if term or trunc:
                    wins += int(info["winner"] == info["seat"])
                    games += 1
                    o, info = env.reset()
                    phi = potential(env)
                phis[i] = phi
                new_obs.append(o)
                new_masks.append(info["action_mask"])
                new_dones.append(float(term or trunc))
            next_obs = torch.as_tensor(np.stack(new_obs))
            next_mask = torch.as_tensor(np.stack(new_masks), dtype=torch.bool)
            next_done = torch.as_tensor(new_dones)

        with torch.no_grad():
            next_value = agent.get_value(next_obs)
        advantages, returns = gae(
            rewards, dones, values, next_value, next_done, args.gamma, args.gae_lambda
        )
        batch = (
            obs_buf.reshape(-1, obs_size),
            mask_buf.reshape(-1, n_actions),
            actions.reshape(-1),
            logprobs.reshape(-1),
            advantages.reshape(-1),
            returns.reshape(-1),
            teacher_actions.reshape(-1),
        )
        kick = 0.0
        if teacher is not None and args.kickstart_frac > 0:
            kick = args.kickstart_coef * max(
                0.0, 1 - step / (args.kickstart_frac * args.total_steps)
            )
        stats = ppo_update(agent, optimizer, batch, args, kick)
        rate = f"{wins / games:.3f} over {games} games" if games else "no game finished"
        print(
            f"step {step:>8,}  train win rate {rate}  entropy {stats['entropy']:.2f}  "
            f"{step / (time.time() - start):,.0f} steps/s",
            flush=True,
        )
        wins, games = 0, 0

    if args.save:
        torch.save(agent.state_dict(), args.save)
    won, n = evaluate(agent, args, args.eval_games)
    lo, hi = wilson(won, n)
    print(
        f"win rate against {args.eval_opponent} at 2 players: {won / n:.3f} ({won}/{n} games, "
        f"Wilson 95% {lo:.3f}-{hi:.3f}; chance 0.500) after {step:,} steps in "
        f"{time.time() - start:.0f} s",
        flush=True,
    )
    return won / n


if __name__ == "__main__":
    main()
