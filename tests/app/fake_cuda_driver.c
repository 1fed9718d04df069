/* A stand-in for the NVIDIA driver library (libcuda.so.1) with the few driver-API calls
 * `fxlens devices` makes, so that the device listing is tested on machines without a GPU:
 * two devices by default; FAKE_CUDA_DEVICES sets the count, FAKE_CUDA_INIT_ERROR makes cuInit
 * fail with that code (100: CUDA_ERROR_NO_DEVICE). */
#include <stdlib.h>
#include <string.h>

static int envInt(const char* name, int fallback)
{
    const char* v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

int cuInit(unsigned flags)
{
    (void)flags;
    return envInt("FAKE_CUDA_INIT_ERROR", 0);
}
int cuDriverGetVersion(int* v)
{
    *v = 13000;
    return 0;
}
int cuDeviceGetCount(int* n)
{
    *n = envInt("FAKE_CUDA_DEVICES", 2);
    return 0;
}
int cuDeviceGet(int* dev, int ordinal)
{
    *dev = ordinal;
    return 0;
}
int cuDeviceGetName(char* name, int len, int dev)
{
    const char* n = dev == 0 ? "Fake H200" : "Fake L4";
    strncpy(name, n, (size_t)len);
    return 0;
}
int cuDeviceTotalMem_v2(size_t* bytes, int dev)
{
    *bytes = dev == 0 ? (size_t)150 << 30 : (size_t)24 << 30;
    return 0;
}
int cuDeviceGetAttribute(int* value, int attribute, int dev)
{
    switch (attribute) {
    case 75: *value = dev == 0 ? 9 : 8; return 0; /* compute capability major */
    case 76: *value = dev == 0 ? 0 : 9; return 0; /* minor */
    case 16: *value = dev == 0 ? 132 : 58; return 0; /* multiprocessors */
    default: return 1;
    }
}
int cuGetErrorString(int code, const char** s)
{
    *s = code == 100 ? "no CUDA-capable device is detected" : "unknown error";
    return 0;
}
