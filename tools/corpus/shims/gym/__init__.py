"""A gym stand-in for the corpus runs: CartPole-v0 only, with the classic cart-pole dynamics.

The reinforcement-learning programs of the corpus drive OpenAI gym's CartPole; the machines that
run the corpus have no gym. This environment follows the published cart-pole equations (Barto,
Sutton and Anderson, 1983, as gym's CartPole-v0 integrates them: Euler steps of 0.02 s, force
10 N, failure past 12 degrees or 2.4 m) and starts from a fixed seed, so both runs (TF and
flowloom) see the same episodes for the same actions.
"""
import math

import numpy as np

__version__ = "0.0-corpus-stand-in"


class Discrete:
    def __init__(self, n, rng):
        self.n = n
        self.shape = ()
        self._rng = rng

    def sample(self):
        return int(self._rng.randint(self.n))

    def __repr__(self):
        return "Discrete(%d)" % self.n


class Box:
    def __init__(self, low, high):
        self.low = np.asarray(low, np.float32)
        self.high = np.asarray(high, np.float32)
        self.shape = self.low.shape

    def __repr__(self):
        return "Box%s" % (self.shape,)


class CartPoleEnv:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    def __init__(self):
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length
        self.np_random = np.random.RandomState(0)
        high = np.array([self.x_threshold * 2, np.finfo(np.float32).max,
                         self.theta_threshold_radians * 2, np.finfo(np.float32).max])
        self.action_space = Discrete(2, self.np_random)
        self.observation_space = Box(-high, high)
        self.state = None

    @property
    def unwrapped(self):
        return self

    def seed(self, seed=None):
        self.np_random.seed(seed)
        return [seed]

    def reset(self):
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        return np.array(self.state)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot * theta_dot * sin) / self.total_mass
        thetaacc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos * cos / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * cos / self.total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        done = bool(x < -self.x_threshold or x > self.x_threshold or
                    theta < -self.theta_threshold_radians or
                    theta > self.theta_threshold_radians)
        return np.array(self.state), 1.0, done, {}

    def render(self, *args, **kwargs):
        return None

    def close(self):
        pass


def make(name):
    if name not in ("CartPole-v0", "CartPole-v1"):
        raise NotImplementedError("the corpus's gym stand-in has CartPole only, not %s" % name)
    return CartPoleEnv()
