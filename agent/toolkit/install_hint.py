"""What to install when a tool's import fails: the distribution that provides a module, and the Python
that runs Riverse (the one whose ``pip`` must install it).

A module's import name is often not the name it is installed by (``import PIL`` comes with
``pip install Pillow``). The name is taken, in order, from a table of well-known mismatches, from the
distributions installed in this Python (``importlib.metadata.packages_distributions()``: a package that
is installed but lost the module), and otherwise the import name itself, with a word that the package
may be published under another name.
"""

from __future__ import annotations

import shlex
import sys

__all__ = ["distribution_for", "install_hint", "WELL_KNOWN"]

# import name -> the distribution to install, for names that differ
WELL_KNOWN: dict[str, str] = {
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "yaml": "PyYAML",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "magic": "python-magic",
    "slugify": "python-slugify",
    "multipart": "python-multipart",
    "jose": "python-jose",
    "telegram": "python-telegram-bot",
    "Crypto": "pycryptodome",
    "OpenSSL": "pyOpenSSL",
    "jwt": "PyJWT",
    "git": "GitPython",
    "fitz": "PyMuPDF",
    "serial": "pyserial",
    "usb": "pyusb",
    "zmq": "pyzmq",
    "attr": "attrs",
    "gi": "PyGObject",
    "cairo": "pycairo",
    "MySQLdb": "mysqlclient",
    "win32api": "pywin32",
    "win32com": "pywin32",
    "google.protobuf": "protobuf",
    "googleapiclient": "google-api-python-client",
    "faiss": "faiss-cpu",
}


def distribution_for(module: str) -> tuple[str, bool]:
    """``(distribution, known)``: what to ``pip install`` for the missing ``module`` (a dotted name), and
    whether that name is known rather than guessed from the import name."""
    top = module.split(".")[0]
    for name in (module, top):
        if name in WELL_KNOWN:
            return WELL_KNOWN[name], True
    if module == top:  # a dotted name may be a namespace many distributions share ("google.cloud")
        try:
            from importlib import metadata

            installed = metadata.packages_distributions().get(top) or []
        except Exception:  # noqa: BLE001 - broken metadata: fall back to the import name
            installed = []
        if len(set(installed)) == 1:
            return installed[0], True
    return top, False


def install_hint(module: str) -> str:
    """How to install the missing ``module`` into the Python that runs Riverse (and its tool workers)."""
    dist, known = distribution_for(module)
    command = f"{shlex.quote(sys.executable)} -m pip install {shlex.quote(dist)}"
    hint = f"install it into the Python that runs Riverse: {command}"
    if not known:
        hint += f"; if '{dist}' is not the name it is published under on PyPI, install that name instead"
    return hint
