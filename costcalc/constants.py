"""Names shared by every layer, with no imports, so argument parsers can use them for free."""

PROVIDERS: tuple[str, ...] = ("paperspace", "aws-spot", "aws-ondemand", "colab")
"""Providers with a price snapshot, in display order."""

CUSTOM_PROVIDER = "custom"
"""Offers the user prices on the command line or in the app."""

KINDS: tuple[str, ...] = ("cnn", "transformer", "rnn", "generic")
DTYPES: tuple[str, ...] = ("fp32", "tf32", "fp16", "bf16")
