"""xitorch, a library the analysis was never shown (in neither half of the harness, not reserved):
differentiable scientific computing. Its quadrature (fixed and adaptive), initial-value problem solvers
(Runge-Kutta fixed and adaptive, Euler), root finders, equilibrium and minimizers (Broyden, gradient
descent, Adam), linear solves (exact, CG, BiCGSTAB, GMRES, Broyden) and eigen- and singular value
decompositions of linear operators, and 1-D interpolation, each called by a small function of the
user's under dynamo against the static pass on the same tree.

Run it where torch and xitorch are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps xitorch==0.5.1`), from the repository root:

    python bench/unseen_xitorch.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_xitorch.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import xitorch
from xitorch import LinearOperator
from xitorch.integrate import quad, solve_ivp
from xitorch.interpolate import Interp1D
from xitorch.linalg import solve, svd, symeig
from xitorch.optimize import equilibrium, minimize, rootfinder

warnings.filterwarnings("ignore")
ROOT = Path(xitorch.__file__).resolve().parent
ENTRY_POINTS = ["xitorch.integrate.quad", "xitorch.integrate.solve_ivp", "xitorch.optimize.rootfinder",
                "xitorch.optimize.equilibrium", "xitorch.optimize.minimize", "xitorch.linalg.solve",
                "xitorch.linalg.symeig", "xitorch.linalg.svd", "xitorch.interpolate.Interp1D",
                "xitorch.interpolate.Interp1D.__call__"]


def _decay(t, y, a):
    return -a * y


def _residual(y, a):
    return y * y * y + a * y - 1.0


def _contraction(y, a):
    return torch.tanh(a * y) * 0.5 + 0.1


def _loss(y, a):
    return ((y - a) ** 2).sum()


def cases():
    torch.manual_seed(0)
    a = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    y0 = torch.ones(3, dtype=torch.float64)
    ts = torch.linspace(0, 1, 6, dtype=torch.float64)
    out = []
    for method in ("leggaus", "trapz", "simpson"):
        out.append((f"quad_{method}", lambda xu, method=method: quad(lambda x, a: torch.sin(a * x), 0.0, xu, params=(a,),
                                                                     method=method), (torch.tensor(1.0, dtype=torch.float64),)))
    for method in ("rk4", "rk38", "euler", "rk23", "rk45"):
        out.append((f"ivp_{method}", lambda y, method=method: solve_ivp(_decay, ts, y, params=(a,), method=method),
                    (y0,)))
    for method in ("broyden1", "broyden2", "linearmixing"):
        out.append((f"root_{method}", lambda y, method=method: rootfinder(_residual, y, params=(a,), method=method,
                                                                          maxiter=20), (y0,)))
    out.append(("equilibrium", lambda y: equilibrium(_contraction, y, params=(a,), maxiter=20), (y0,)))
    for method in ("gd", "adam"):
        out.append((f"minimize_{method}", lambda y, method=method: minimize(_loss, y, params=(a,), method=method,
                                                                            maxiter=20, step=0.1), (y0,)))
    matrix = torch.randn(4, 4, dtype=torch.float64)
    spd = matrix @ matrix.T + 4 * torch.eye(4, dtype=torch.float64)
    op = LinearOperator.m(spd, is_hermitian=True)
    rhs = torch.randn(4, 2, dtype=torch.float64)
    for method in ("exactsolve", "cg", "bicgstab", "gmres", "broyden1"):
        out.append((f"solve_{method}", lambda b, method=method: solve(op, b, method=method), (rhs,)))
    out.append(("symeig", lambda m: symeig(LinearOperator.m(m, is_hermitian=True), neig=2), (spd,)))
    out.append(("svd", lambda m: svd(LinearOperator.m(m), k=2), (matrix,)))
    x = torch.linspace(0, 1, 8, dtype=torch.float64)
    for method in ("cspline", "linear"):
        interp = Interp1D(x, torch.sin(x), method=method)
        out.append((f"interp_{method}", interp, (torch.rand(5, dtype=torch.float64),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"xitorch {version('xitorch')}")
