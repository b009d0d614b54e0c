"""Qt tests run offscreen: no display on CI, and no window may pop up on a developer's desktop.

The platform must be chosen before the first Qt import of the session, hence here, at import
time of the conftest (pytest imports it before any test module of this folder).
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
