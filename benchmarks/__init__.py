"""Performance scripts: each prints medians and ratios against a baseline run alongside."""
