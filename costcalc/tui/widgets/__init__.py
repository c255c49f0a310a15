"""One widget per module: setup panel, offers table, filters, plots, verdict, explanation."""
