"""The parts ``app.main_window`` is assembled from. Each takes the widgets it drives and a narrow
port — a few callables of the controller, the event channel (``app.events.WindowEvents``) — and
never the window; what the window *does* is decided by the Qt-free ``app.controller``, which
publishes what to show as typed events the parts subscribe to.

- the frame: ``actions`` (actions, toolbar, menus, the Programs field), ``docks``, ``layouts``,
  ``settings`` (geometry, the timeout dialog), ``status_line`` (the status bar), ``startup``
  (what runs after the first frame), ``readings`` (what the controller reads of the window);
- the panes: ``kernel_pane`` (kernel list, parameters, file watch), ``grid_pane`` (banner,
  caption, grid, source), ``run_views`` (throughput, correctness, compile facts), ``plot_tabs``
  (Throughput and the sweep plot), ``history_pane`` (+ ``history_reader``), ``lessons``, ``live``;
- the parts with requests or answers of their own: ``sweep_tabs`` (heatmap, ranking, roofline),
  ``compile_target``, ``compile_ahead``, ``full_res``, ``kernel_traces``, ``timeline_dock`` and
  ``compare`` (GPU traces), ``links`` (check ↔ trace);
- small widgets and dialogs: ``widgets``, ``dialogs``, ``sweep_setup``, ``exports``, ``file_watch``.
"""
