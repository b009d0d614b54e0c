"""The Qt pieces ``app.main_window`` is assembled from: small widgets (``widgets``, ``dialogs``),
the dock layout (``docks``), the window's saved geometry and the timeout dialog (``settings``),
the history table's background reads (``history_reader``), the kernel file watcher
(``file_watch``), exports (``exports``), the check ↔ trace link (``links``) and what runs after
the first frame (``startup``). What the window *does* is decided by the Qt-free
``app.controller``."""
