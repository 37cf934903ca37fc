# This package shadows the stdlib module `secrets`, which Django imports (hashing, CSRF);
# load the stdlib module and re-export its public API before anything else. Import nothing heavy.
import importlib.util as _util
import os as _os
import sysconfig as _sysconfig

_path = _os.path.join(_sysconfig.get_paths()["stdlib"], "secrets.py")
_spec = _util.spec_from_file_location("_stdlib_secrets", _path)
assert _spec is not None and _spec.loader is not None
_std = _util.module_from_spec(_spec)
_spec.loader.exec_module(_std)
globals().update({_name: getattr(_std, _name) for _name in _std.__all__})
__all__ = list(_std.__all__)
