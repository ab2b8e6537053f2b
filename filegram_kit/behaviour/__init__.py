"""How a user behaves, read off their traces: the 17-D fingerprint, drift, habit models, masquerade
and intruder detection, persona distances, the PU command streams."""
