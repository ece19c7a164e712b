"""PPO with action masking on Last Will's single-seat env, in one file shaped like CleanRL's
`ppo.py`: a dataclass of arguments parsed by tyro, a `gymnasium.vector.SyncVectorEnv`, a
separate actor and critic with orthogonal initialisation, GAE, the clipped policy loss, and a
TensorBoard log in `runs/<run name>/` with CleanRL's tags (`charts/episodic_return`,
`charts/episodic_length`, `charts/learning_rate`, `charts/SPS`, `losses/value_loss`,
`losses/policy_loss`, `losses/entropy`, `losses/old_approx_kl`, `losses/approx_kl`,
`losses/clipfrac`, `losses/explained_variance`), plus `eval/win_rate_vs_<bot>` at the end.

It uses only the public env: `gymnasium.make("lastwill_env:LastWill-v1", num_players=2,
opponents_fn=..., illegal_action="raise")` (docs/ENV.md), the legal actions from
`info["action_mask"]`, the final totals from `info["result"]`, and bots built by
`agents.registry.make_agent` from the player specs of `lastwill arena`, one drawn per game
from `--opponents` (by default `greedy`, `speculator` and `random`: a fresh policy has games
it can win as well as strong play to learn from). Masking: an illegal action's logit is set to
-1e8 before sampling, so the policy never picks one (an illegal action would stop the run: the
env raises).

    python examples/cleanrl_ppo.py                            # the default budget
    python examples/cleanrl_ppo.py --total-timesteps 4096     # a smoke run (seconds)
    python examples/cleanrl_ppo.py --help                     # every argument
    tensorboard --logdir runs                                 # the curves

The settings are those of the lab's quick recipe (training/configs/quick.toml) where CleanRL
has no default of its own for them: learning rate 1e-3, two hidden layers of 64, rollouts of
4,096 decisions (16 games x 256) cut into minibatches of 1,024, 4 epochs; gamma 0.99 and the
rest as in CleanRL, but the value loss is not clipped (`--clip-vloss` clips it): clipping
moves the value by at most 0.2 per update, too slow for returns as large as the margin's.

Reward: the env's terminal reward (+1 for a win, -1 for a loss at 2 players), which is what
`charts/episodic_return` shows, plus `--margin-coef` (10) times the final margin, (the
opponent's total - the learner's total) / 100 from `info["result"]["totals"]` (docs/RULES.md
§8: the least total of money plus property value wins, so the margin is the game's own score,
and a game lost by less scores better). The lab's trainer can shape every step instead
(`shaping`, docs/TRAINING.md), from the engine's state.

At the end it plays `--eval-games` fresh games against each of `--eval-opponents` (by default
the training mix), the policy playing its most likely legal action (`--no-eval-argmax`:
sampling, as it trained), and prints each win rate with its Wilson 95% interval (chance is 50%
at 2 players).

Measured with the default command (`time python examples/cleanrl_ppo.py`: 397,312 steps, then
400 games per bot) on a 2-core machine shared with other jobs: 2 min 7 s wall-clock and
2 min 6 s of CPU time (user + sys), the evaluation included (on one core; other runs of the same
budget took about the same CPU time and up to 3 minutes wall-clock as the load varied). Win
rates: seed 1 against greedy 0.253 (101/400, Wilson 95% 0.212-0.297), speculator 0.500 (200/400,
0.451-0.549), random 0.995 (398/400, 0.982-0.999); seed 2 (`--seed 2`) 0.247 (99/400,
0.208-0.292), 0.728 (291/400, 0.682-0.769), 0.988 (395/400, 0.971-0.995). The same seed gives
the same run. A fresh policy (seed 1's initial weights) wins 1/400 against greedy, 5/400 against
speculator and 231/400 against random. At seed 1 the margin's weight mattered (against greedy,
value loss clipped): 0: 0.003, 1: 0.010, 5: 0.235, 10: 0.362, 20: 0.352, 50: 0.000; at seed 2,
weight 10, clipping the value loss gave 0.033 against greedy, not clipping it 0.247. It stays
below the lab's quick recipe (0.62 against greedy at 300k steps), which learns from every seat,
shapes every step and keeps a pool of opponents.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import tyro
from torch.distributions.categorical import Categorical
from torch.utils.tensorboard import SummaryWriter

from agents.registry import PlayerSpecError, make_agent

MASKED_LOGIT = -1e8


@dataclass
class Args:
    exp_name: str = os.path.basename(__file__)[: -len(".py")]
    """the name of this experiment (part of the run name)"""
    seed: int = 1
    """seed of the experiment"""
    torch_deterministic: bool = True
    """if toggled, `torch.backends.cudnn.deterministic=True`"""
    torch_threads: int = 1
    """torch's intra-op threads (the networks are small: one is fastest)"""
    env_id: str = "lastwill_env:LastWill-v1"
    """the id of the environment"""
    total_timesteps: int = 400_000
    """total learner decisions of the experiment"""
    learning_rate: float = 1e-3
    """the learning rate of the optimizer"""
    num_envs: int = 16
    """the number of games played side by side"""
    num_steps: int = 256
    """the number of steps to run in each environment per policy rollout"""
    anneal_lr: bool = True
    """toggle learning rate annealing for policy and value networks"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 4
    """the number of mini-batches"""
    update_epochs: int = 4
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """toggles advantages normalization"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = False
    """toggles whether or not to use a clipped loss for the value function (see the docstring)"""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
    """the maximum norm for the gradient clipping"""
    target_kl: float | None = None
    """the target KL divergence threshold"""
    hidden: int = 64
    """width of the two hidden layers of the actor and of the critic"""
    opponents: str = "greedy,speculator,random"
    """the other seat's bots in training, one drawn per game (`lastwill arena` player specs)"""
    margin_coef: float = 10.0
    """weight of the final margin (totals / 100) added to the terminal reward (0: off)"""
    eval_opponents: str = "greedy,speculator,random"
    """the bots of the final evaluation, each played in turn (player specs)"""
    eval_games: int = 400
    """games against each of `eval_opponents` at the end"""
    eval_argmax: bool = True
    """play the most likely legal action in the evaluation (`--no-eval-argmax`: sample)"""
    save_model: bool = False
    """whether to save the model's state_dict into `runs/<run name>/`"""

    # to be filled in runtime
    batch_size: int = 0
    """the batch size (computed in runtime)"""
    minibatch_size: int = 0
    """the mini-batch size (computed in runtime)"""
    num_iterations: int = 0
    """the number of iterations (computed in runtime)"""


def refuse(message: str) -> None:
    """Exit with a command-line error (code 2), as a parser does."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def parse_args(argv: list[str] | None = None) -> Args:
    """`Args` from the command line (tyro: `--total-timesteps 4096`, `--no-anneal-lr`), with
    the sizes computed and the budget and player specs checked."""
    args = tyro.cli(Args, args=argv)
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = args.total_timesteps // args.batch_size
    if args.num_iterations < 1:
        refuse(
            f"--total-timesteps {args.total_timesteps} is less than one rollout "
            f"(--num-envs x --num-steps = {args.batch_size})"
        )
    if args.batch_size % args.num_minibatches:
        refuse("--num-minibatches must divide --num-envs x --num-steps")
    for flag, specs in (("--opponents", args.opponents), ("--eval-opponents", args.eval_opponents)):
        for spec in specs.split(","):
            try:
                make_agent(spec.strip(), seed=0)
            except PlayerSpecError as e:
                refuse(f"{flag} {specs!r}: {e}")
    return args


class FinalMargin(gym.Wrapper):
    """Adds `coef` x (opponent's total - learner's total) / 100 to the terminal reward."""

    def __init__(self, env: gym.Env, coef: float) -> None:
        super().__init__(env)
        self.coef = coef

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated and "result" in info:
            totals, seat = info["result"]["totals"], info["seat"]
            others = (sum(totals) - totals[seat]) / (len(totals) - 1)
            reward = reward + self.coef * (others - totals[seat]) / 100.0
        return obs, reward, terminated, truncated, info


def make_env(env_id: str, opponents: str, seed: int, margin_coef: float = 0.0):
    """A thunk for the vector env: 2 players, the learner's seat drawn per game, the other
    seat's bot drawn per game from the comma-separated specs `opponents`."""

    def thunk() -> gym.Env:
        specs = [s.strip() for s in opponents.split(",")]
        bots = [make_agent(spec, seed=seed + k) for k, spec in enumerate(specs)]

        def draw(num_players: int, rng: np.random.Generator) -> list:
            return [bots[int(rng.integers(len(bots)))] for _ in range(num_players - 1)]

        env = gym.make(env_id, num_players=2, opponents_fn=draw, illegal_action="raise")
        env = gym.wrappers.RecordEpisodeStatistics(env)  # the game's own return
        return FinalMargin(env, margin_coef) if margin_coef else env

    return thunk


def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias_const: float = 0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


def mlp(n_in: int, hidden: int, n_out: int, std: float) -> nn.Sequential:
    return nn.Sequential(
        layer_init(nn.Linear(n_in, hidden)),
        nn.Tanh(),
        layer_init(nn.Linear(hidden, hidden)),
        nn.Tanh(),
        layer_init(nn.Linear(hidden, n_out), std=std),
    )


class Agent(nn.Module):
    """Separate actor and critic MLPs; illegal actions get a logit of `MASKED_LOGIT`."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int = 64) -> None:
        super().__init__()
        self.critic = mlp(obs_size, hidden, 1, std=1.0)
        self.actor = mlp(obs_size, hidden, n_actions, std=0.01)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(x).masked_fill(~mask, MASKED_LOGIT)

    def get_action_and_value(self, x, mask, action=None):
        probs = Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


class Rollout:
    """The storage of one rollout: (num_steps, num_envs) of every quantity."""

    def __init__(self, args: Args, obs_size: int, n_actions: int) -> None:
        shape = (args.num_steps, args.num_envs)
        self.obs = torch.zeros(shape + (obs_size,))
        self.masks = torch.zeros(shape + (n_actions,), dtype=torch.bool)
        self.actions = torch.zeros(shape, dtype=torch.long)
        self.logprobs = torch.zeros(shape)
        self.rewards = torch.zeros(shape)
        self.dones = torch.zeros(shape)
        self.values = torch.zeros(shape)


def as_mask(infos: dict) -> torch.Tensor:
    return torch.as_tensor(infos["action_mask"], dtype=torch.bool)


def log_episodes(writer: SummaryWriter, infos: dict, global_step: int) -> None:
    """Episode return (the game's +1/-1) and length of every game that just ended."""
    if "final_info" not in infos:
        return
    final = infos["final_info"]
    for i in np.flatnonzero(final.get("_episode", [])):
        writer.add_scalar("charts/episodic_return", final["episode"]["r"][i], global_step)
        writer.add_scalar("charts/episodic_length", final["episode"]["l"][i], global_step)


def collect(envs, agent, buf: Rollout, state, global_step: int, writer) -> tuple:
    """Fill `buf` with `num_steps` steps of every env; returns the next (obs, mask, done) and
    the global step."""
    next_obs, next_mask, next_done = state
    for step in range(buf.obs.shape[0]):
        global_step += envs.num_envs
        buf.obs[step], buf.masks[step], buf.dones[step] = next_obs, next_mask, next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
        buf.values[step] = value.flatten()
        buf.actions[step], buf.logprobs[step] = action, logprob
        obs, reward, terminations, truncations, infos = envs.step(action.numpy())
        buf.rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
        next_obs, next_mask = torch.as_tensor(obs), as_mask(infos)
        next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
        log_episodes(writer, infos, global_step)
    return (next_obs, next_mask, next_done), global_step


def advantages_and_returns(agent, buf: Rollout, next_obs, next_done, args: Args):
    """Generalised advantage estimates and returns (CleanRL's loop)."""
    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages = torch.zeros_like(buf.rewards)
        lastgaelam = 0
        for t in reversed(range(args.num_steps)):
            if t == args.num_steps - 1:
                nextnonterminal, nextvalues = 1.0 - next_done, next_value
            else:
                nextnonterminal, nextvalues = 1.0 - buf.dones[t + 1], buf.values[t + 1]
            delta = buf.rewards[t] + args.gamma * nextvalues * nextnonterminal - buf.values[t]
            lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            advantages[t] = lastgaelam
    return advantages, advantages + buf.values


def minibatch_loss(agent, b: dict, mb_inds, args: Args) -> tuple[torch.Tensor, dict]:
    """The clipped PPO loss of one minibatch and its statistics."""
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(
        b["obs"][mb_inds], b["masks"][mb_inds], b["actions"][mb_inds]
    )
    logratio = newlogprob - b["logprobs"][mb_inds]
    ratio = logratio.exp()
    with torch.no_grad():
        old_approx_kl = (-logratio).mean()
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean().item()
    mb_advantages = b["advantages"][mb_inds]
    if args.norm_adv:
        mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
    newvalue, returns, values = newvalue.view(-1), b["returns"][mb_inds], b["values"][mb_inds]
    if args.clip_vloss:
        v_clipped = values + torch.clamp(newvalue - values, -args.clip_coef, args.clip_coef)
        v_loss_max = torch.max((newvalue - returns) ** 2, (v_clipped - returns) ** 2)
        v_loss = 0.5 * v_loss_max.mean()
    else:
        v_loss = 0.5 * ((newvalue - returns) ** 2).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
    stats = {
        "value_loss": v_loss.item(),
        "policy_loss": pg_loss.item(),
        "entropy": entropy_loss.item(),
        "old_approx_kl": old_approx_kl.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": clipfrac,
    }
    return loss, stats


def update(agent, optimizer, b: dict, args: Args) -> dict[str, float]:
    """`update_epochs` passes of clipped PPO over shuffled minibatches of the batch `b`."""
    b_inds = np.arange(args.batch_size)
    clipfracs = []
    for _ in range(args.update_epochs):
        np.random.shuffle(b_inds)
        for start in range(0, args.batch_size, args.minibatch_size):
            mb_inds = b_inds[start : start + args.minibatch_size]
            loss, stats = minibatch_loss(agent, b, mb_inds, args)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            clipfracs.append(stats["clipfrac"])
        if args.target_kl is not None and stats["approx_kl"] > args.target_kl:
            break
    y_pred, y_true = b["values"].numpy(), b["returns"].numpy()
    var_y = np.var(y_true)
    stats["explained_variance"] = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    stats["clipfrac"] = float(np.mean(clipfracs))
    return stats


def flatten(buf: Rollout, advantages, returns) -> dict[str, torch.Tensor]:
    """The rollout as one batch of `batch_size` decisions."""
    return {
        "obs": buf.obs.reshape((-1, buf.obs.shape[-1])),
        "masks": buf.masks.reshape((-1, buf.masks.shape[-1])),
        "actions": buf.actions.reshape(-1),
        "logprobs": buf.logprobs.reshape(-1),
        "advantages": advantages.reshape(-1),
        "returns": returns.reshape(-1),
        "values": buf.values.reshape(-1),
    }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a win rate (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(agent: Agent, args: Args, opponent: str) -> int:
    """Wins in `args.eval_games` fresh games against the bot `opponent`."""
    env = make_env(args.env_id, opponent, seed=10_000 + args.seed)()
    wins = 0
    for g in range(args.eval_games):
        obs, info = env.reset(seed=1_000_000 + 1_000 * args.seed + g)
        done = False
        while not done:
            with torch.no_grad():
                logits = agent.masked_logits(torch.as_tensor(obs), as_mask(info))
            if args.eval_argmax:
                action = int(logits.argmax())
            else:
                action = int(Categorical(logits=logits).sample())
            obs, _, done, _, info = env.step(action)
        wins += int(info["winner"] == info["seat"])
    env.close()
    return wins


def log_update(writer, stats: dict, lr: float, global_step: int, start_time: float) -> None:
    writer.add_scalar("charts/learning_rate", lr, global_step)
    for name, value in stats.items():
        writer.add_scalar(f"losses/{name}", value, global_step)
    sps = int(global_step / (time.time() - start_time))
    writer.add_scalar("charts/SPS", sps, global_step)
    print(f"global_step={global_step:,} SPS={sps} entropy={stats['entropy']:.2f}", flush=True)


def report(writer, args: Args, agent: Agent, global_step: int, start_time: float) -> dict:
    """Play the evaluation games against each bot; log and print each win rate with its
    Wilson interval. Returns the win rates by bot."""
    rates = {}
    if args.eval_games < 1:
        return rates
    for opponent in [s.strip() for s in args.eval_opponents.split(",")]:
        won, n = evaluate(agent, args, opponent), args.eval_games
        lo, hi = wilson(won, n)
        rates[opponent] = won / n
        writer.add_scalar(f"eval/win_rate_vs_{opponent}", won / n, global_step)
        print(
            f"win rate against {opponent} at 2 players: {won / n:.3f} ({won}/{n} games, "
            f"Wilson 95% {lo:.3f}-{hi:.3f}; chance 0.500) after {global_step:,} steps in "
            f"{time.time() - start_time:.0f} s",
            flush=True,
        )
    return rates


def setup(args: Args) -> tuple[str, SummaryWriter]:
    """Seeds, threads, the run name and its TensorBoard writer."""
    run_name = f"LastWill-v1__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"runs/{run_name}")
    table = "\n".join(f"|{key}|{value}|" for key, value in vars(args).items())
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(args.torch_threads)
    return run_name, writer


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train, evaluate and print; returns the final win rates by evaluation bot."""
    args = parse_args(argv)
    run_name, writer = setup(args)
    envs = gym.vector.SyncVectorEnv(
        [
            make_env(args.env_id, args.opponents, args.seed * 100 + 10 * i, args.margin_coef)
            for i in range(args.num_envs)
        ],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )
    obs_size = envs.single_observation_space.shape[0]
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, n_actions, args.hidden)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    buf = Rollout(args, obs_size, n_actions)

    global_step, start_time = 0, time.time()
    obs, infos = envs.reset(seed=args.seed)
    state = (torch.as_tensor(obs), as_mask(infos), torch.zeros(args.num_envs))
    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        state, global_step = collect(envs, agent, buf, state, global_step, writer)
        advantages, returns = advantages_and_returns(agent, buf, state[0], state[2], args)
        stats = update(agent, optimizer, flatten(buf, advantages, returns), args)
        log_update(writer, stats, optimizer.param_groups[0]["lr"], global_step, start_time)

    if args.save_model:
        torch.save(agent.state_dict(), f"runs/{run_name}/{args.exp_name}.cleanrl_model")
    rates = report(writer, args, agent, global_step, start_time)
    envs.close()
    writer.close()
    return rates


if __name__ == "__main__":
    main()
