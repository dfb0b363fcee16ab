"""Values and field reading: errors, integers, paths, the token-id fields, the findings
collector.  Imports nothing else of the package.  Internal, except the documented paths
``drafting_config.paths`` and the error and warning classes.
"""
