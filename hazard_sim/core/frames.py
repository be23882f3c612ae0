"""Simulated time and instance-id ranges shared by every benchmark."""
FRAME_DT = 0.1          # seconds of simulated time per frame
OBJECT_ID_BASE = 1000   # entity instance ids start here; scene parts use 1..899
EFFECT_ID_BASE = 900    # ids 900..999: geometry drawn by world processes (flames, ...)
