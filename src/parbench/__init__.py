"""parbench: which concurrency model and runtime wins, measured, verified and explained."""
__version__ = "0.1.0"
