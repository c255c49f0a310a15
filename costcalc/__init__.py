"""costcalc: rent cloud GPUs or buy a desktop? Cost per run, break-even, kWh and CO2."""

__version__ = "0.1.0"
