"""A small PyTorch policy trained on Kvarn's batched simulator against random play.

    pip install torch ./python
    python python/examples/train_policy.py [--variant nine] [--minutes 3] [--games 512]

The policy is an MLP over Kvarn's network encoding (``Rules.input_len`` features, the
same the shipped models read) with one logit per action, masked to the legal ones. It
plays one side in every game of a ``kvarn.BatchSim`` (White in even slots, Black in odd
ones); random play, drawn in Rust by ``BatchSim.random_actions``, plays the other.
Training is REINFORCE with a baseline: each of the policy's decisions is credited with
the game's result (win 1, draw 0, loss -1) plus a small reward for each man it takes
and a penalty for each it loses from that decision on, so that the first mills are
learnt before the first won games are common. At the end the greedy policy plays
``--eval-games`` games against random play, colours alternating, and the score
(wins plus half the draws) is printed.
"""

import argparse
import time

import numpy as np
import torch
from torch import nn

import kvarn

#: Reward for each man the policy takes (and minus it for each it loses), beside the
#: result's 1, 0 or -1.
REMOVAL_REWARD = 0.1


def result_for(side, white_result):
    """A finished game's result for the side that played `side` (0 White, 1 Black): 1,
    0 or -1, from `BatchSim.step`'s result for White (1 won, 2 drawn, -1 lost)."""
    return 0.0 if white_result == 2 else float(white_result) * (1 - 2 * side)


class Policy(nn.Module):
    def __init__(self, inputs, actions, hidden=256):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(inputs, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, actions),
        )

    def forward(self, obs, mask):
        return self.net(obs).masked_fill(~mask, -1e9)


class Rollouts:
    """Batched games of the policy against random play, and the policy's decisions
    with the returns they earned once their games ended."""

    def __init__(self, rules, games, seed):
        self.rules = rules
        self.sim = kvarn.BatchSim(rules, games, seed=seed)
        self.obs = np.zeros((games, rules.input_len), np.float32)
        self.masks = np.zeros((games, rules.actions), bool)
        self.side = np.arange(games) % 2  # the policy's colour: 0 White, 1 Black
        self.first_removal = rules.actions - rules.points
        self.taken = np.zeros(games)  # men taken by the policy minus men it lost
        self.open = [[] for _ in range(games)]  # (obs, mask, action, taken then) per game
        self.done = []  # (obs, mask, action, return) of finished games
        self.results = []

    def step(self, policy):
        sim = self.sim
        sim.observe(self.obs, self.masks)
        mine = sim.to_move() == self.side
        actions = sim.random_actions()
        with torch.no_grad():
            logits = policy(torch.from_numpy(self.obs[mine]), torch.from_numpy(self.masks[mine]))
            chosen = torch.distributions.Categorical(logits=logits).sample().numpy()
        actions[mine] = chosen
        for g, a in zip(np.flatnonzero(mine), chosen):
            self.open[g].append((self.obs[g].copy(), self.masks[g].copy(), a, self.taken[g]))
        removal = actions >= self.first_removal
        self.taken += np.where(removal, np.where(mine, 1.0, -1.0), 0.0)
        results = sim.step(actions)
        for g in np.flatnonzero(results):
            self.finish(g, results[g])

    def finish(self, g, white_result):
        outcome = result_for(self.side[g], white_result)
        self.results.append(outcome)
        for obs, mask, action, taken_then in self.open[g]:
            shaped = REMOVAL_REWARD * (self.taken[g] - taken_then)
            self.done.append((obs, mask, action, outcome + shaped))
        self.open[g] = []
        self.taken[g] = 0.0


def train_step(policy, optimiser, done, entropy_weight=0.01):
    obs = torch.from_numpy(np.stack([d[0] for d in done]))
    mask = torch.from_numpy(np.stack([d[1] for d in done]))
    action = torch.from_numpy(np.array([d[2] for d in done], np.int64))
    ret = torch.tensor([d[3] for d in done], dtype=torch.float32)
    advantage = (ret - ret.mean()) / (ret.std() + 1e-6)
    dist = torch.distributions.Categorical(logits=policy(obs, mask))
    loss = -(advantage * dist.log_prob(action)).mean() - entropy_weight * dist.entropy().mean()
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    return loss.item()


def evaluate(policy, rules, games, seed):
    """The greedy policy's score against random play over `games` games, each slot
    played once, colours alternating: wins plus half the draws, over games."""
    sim = kvarn.BatchSim(rules, games, seed=seed)
    obs = np.zeros((games, rules.input_len), np.float32)
    masks = np.zeros((games, rules.actions), bool)
    side = np.arange(games) % 2
    outcome = np.full(games, np.nan)
    while np.isnan(outcome).any():
        sim.observe(obs, masks)
        mine = sim.to_move() == side
        actions = sim.random_actions()
        with torch.no_grad():
            logits = policy(torch.from_numpy(obs[mine]), torch.from_numpy(masks[mine]))
        actions[mine] = logits.argmax(dim=1).numpy()
        results = sim.step(actions)
        for g in np.flatnonzero(results):
            if np.isnan(outcome[g]):
                outcome[g] = result_for(side[g], results[g])
    wins, draws = (outcome == 1).sum(), (outcome == 0).sum()
    return (wins + 0.5 * draws) / games, int(wins), int(draws), int(games - wins - draws)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="nine")
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--games", type=int, default=512, help="games played at once")
    parser.add_argument("--batch", type=int, default=4096, help="decisions a training step")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rules = kvarn.Rules(args.variant)
    policy = Policy(rules.input_len, rules.actions)
    optimiser = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rollouts = Rollouts(rules, args.games, args.seed)
    before = evaluate(policy, rules, 200, args.seed + 1)
    print(f"{args.variant}: the untrained policy scores {before[0]:.1%} against random play")
    start, steps, last = time.perf_counter(), 0, 0.0
    while time.perf_counter() - start < args.minutes * 60:
        rollouts.step(policy)
        if len(rollouts.done) >= args.batch:
            train_step(policy, optimiser, rollouts.done)
            rollouts.done = []
            steps += 1
        now = time.perf_counter() - start
        if now - last >= 30 and rollouts.results:
            recent = np.array(rollouts.results[-1000:])
            print(
                f"{now:5.0f} s: {len(rollouts.results)} games, {steps} training steps, "
                f"last 1000 games: won {np.mean(recent == 1):.1%}, lost {np.mean(recent == -1):.1%}"
            )
            last = now
    score, wins, draws, losses = evaluate(policy, rules, args.eval_games, args.seed + 2)
    print(
        f"{args.variant}: after {args.minutes} min ({len(rollouts.results)} games, {steps} training "
        f"steps) the greedy policy scores {score:.1%} against random play over "
        f"{args.eval_games} games: {wins} won, {draws} drawn, {losses} lost"
    )


if __name__ == "__main__":
    main()
