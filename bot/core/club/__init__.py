"""The club without Discord: tournaments (Swiss, round-robin, arena), their standings, and the
pairing queue; records shaped for storage.

Pure and synchronous, but for ``pairer``: the service calls these between its reads and
writes, and ``pairer`` runs ``tournament.next_round`` off the event loop for it.
"""
