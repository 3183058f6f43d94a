"""The toy race: pbem's example game system (docs/adding-a-system.md).

Use :data:`SYSTEM`, through the registry: ``engine.systems.get_system("toy")``.
"""

from engine.toy.system import SYSTEM, ToySystem

__all__ = ["SYSTEM", "ToySystem"]
