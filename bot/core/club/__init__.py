"""The club without Discord: tournaments (Swiss, round-robin, arena), their standings, and the
pairing queue; records shaped for storage.

Pure and synchronous: the service calls these between its reads and writes.
"""
