"""The fft extension."""
