"""The Textual app: explore rent-versus-buy interactively.

Rule kept here: the app is thin. Settings become one `calc.Calculation` through the same
functions the CLI uses; widgets only format and draw it. Anything that blocks (refresh, bench,
GPU detection, saving settings) runs in a thread worker and answers with a message. Importing
this package imports no textual: `costcalc.tui.app.make_app` is the factory the CLI and the
tests use.
"""
