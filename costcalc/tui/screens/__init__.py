"""One screen per module: the main screen, break-even view, help, refresh and bench."""
