"""Images (REP 118) and camera info: ``rgb8`` (H, W, 3) uint8, ``32FC1`` (H, W) float32 (depth in
metres with +inf where nothing was hit, temperature in C, water level in m), ``32SC1`` (H, W)
int32 instance ids, plus ``mono8`` / ``16UC1`` on input.
"""
from __future__ import annotations

import sys
from array import array

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import CameraInfo, Image

from hazard_ros.conversions.stamps import to_ros_header

# encoding -> (numpy dtype, channels)
IMAGE_ENCODINGS = {
    "rgb8": (np.uint8, 3), "bgr8": (np.uint8, 3), "rgba8": (np.uint8, 4), "bgra8": (np.uint8, 4),
    "mono8": (np.uint8, 1), "8UC1": (np.uint8, 1), "mono16": (np.uint16, 1), "16UC1": (np.uint16, 1),
    "32FC1": (np.float32, 1), "32SC1": (np.int32, 1), "64FC1": (np.float64, 1),
}


def bytes_array(buf) -> array:
    a = array("B")
    a.frombytes(memoryview(buf).cast("B"))
    return a


def to_ros_image(img: np.ndarray, stamp: Time, frame_id: str, encoding: str | None = None) -> Image:
    """sensor_msgs/Image from an (H, W) or (H, W, C) array; encoding inferred from
    the dtype when not given (uint8x3 rgb8, uint8 mono8, uint16 16UC1, float32
    32FC1, int32 32SC1)."""
    img = np.asarray(img)
    if img.ndim not in (2, 3):
        raise ValueError(f"image must be (H, W) or (H, W, C), got shape {img.shape}")
    channels = 1 if img.ndim == 2 else img.shape[2]
    if encoding is None:
        guess = {(np.uint8, 3): "rgb8", (np.uint8, 4): "rgba8", (np.uint8, 1): "mono8",
                 (np.uint16, 1): "16UC1", (np.float32, 1): "32FC1", (np.int32, 1): "32SC1",
                 (np.float64, 1): "64FC1"}
        encoding = guess.get((img.dtype.type, channels))
        if encoding is None:
            raise ValueError(f"no image encoding for dtype {img.dtype} with {channels} channel(s)")
    if encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {encoding!r}; known: {sorted(IMAGE_ENCODINGS)}")
    dtype, want = IMAGE_ENCODINGS[encoding]
    if channels != want:
        raise ValueError(f"encoding {encoding} needs {want} channel(s), image has {channels}")
    img = np.ascontiguousarray(img, dtype=np.dtype(dtype).newbyteorder("="))
    msg = Image(header=to_ros_header(stamp, frame_id), height=img.shape[0], width=img.shape[1],
                encoding=encoding, is_bigendian=int(sys.byteorder == "big"),
                step=img.shape[1] * channels * img.itemsize)
    msg.data = bytes_array(img)
    return msg


def from_ros_image(msg: Image) -> np.ndarray:
    """(H, W) or (H, W, C) numpy array of an Image (row padding and byte order handled)."""
    if msg.encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {msg.encoding!r}; known: {sorted(IMAGE_ENCODINGS)}")
    dtype, channels = IMAGE_ENCODINGS[msg.encoding]
    dt = np.dtype(dtype).newbyteorder(">" if msg.is_bigendian else "<")
    row = msg.width * channels * dt.itemsize
    if msg.step < row or len(msg.data) < msg.step * msg.height:
        raise ValueError(f"image data too short: step {msg.step}, {len(msg.data)} bytes for "
                         f"{msg.height}x{msg.width} {msg.encoding}")
    raw = np.frombuffer(msg.data, np.uint8, count=msg.step * msg.height).reshape(msg.height, msg.step)
    out = raw[:, :row].copy().view(dt).astype(dt.newbyteorder("="), copy=False)
    return out.reshape(msg.height, msg.width, channels) if channels > 1 else out.reshape(msg.height, msg.width)


def to_ros_camera_info(K: np.ndarray, width: int, height: int, stamp: Time, frame_id: str) -> CameraInfo:
    """CameraInfo of an ideal pinhole (plumb_bob, zero distortion, P = [K | 0])."""
    K = np.asarray(K, float).reshape(3, 3)
    P = np.zeros((3, 4))
    P[:, :3] = K
    return CameraInfo(header=to_ros_header(stamp, frame_id), width=int(width), height=int(height),
                      distortion_model="plumb_bob", d=[0.0] * 5, k=K.ravel().tolist(),
                      r=np.eye(3).ravel().tolist(), p=P.ravel().tolist())


def from_ros_camera_info(msg: CameraInfo) -> np.ndarray:
    """The 3x3 intrinsic matrix K (``msg.width`` / ``msg.height`` give the size)."""
    K = np.asarray(msg.k, float).reshape(3, 3)
    if K[2, 2] == 0.0:
        raise ValueError("CameraInfo is uncalibrated (K is all zeros)")
    return K
