"""Reference data for job pricing and serving (issues 40 and 43): models, MFU, published runs,
hosted token prices, serving throughput. Read with importlib.resources; no loader yet."""
