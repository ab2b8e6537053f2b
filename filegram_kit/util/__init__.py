"""Small utilities every layer may use: atomic writes, file locks, token estimates, class references,
code closures, CJK text, worker pools."""
