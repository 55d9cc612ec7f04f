// PoCL side of `occupant bench cpu-vs-pocl` (crates/occupant/src/cpu/vs_pocl/).
//
// Usage: harness KERNELS.cl. Builds KERNELS.cl on the first OpenCL CPU device, makes every
// kernel's buffers (inputs from the same formula as the Rust side), prints
// `ready <compute units> <device name>`, then serves commands read from stdin, one per line:
//   run <kernel> <runs> <dump path or ->
// runs the kernel <runs> times and prints `ok <ns> <ns> ...` (wall-clock time of
// clEnqueueNDRangeKernel + clFinish per run); with a dump path it then writes the output
// buffer there (raw little-endian uint32). Errors print `error <message>` (and exit on setup).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x, what)                                                  \
    do {                                                                \
        cl_int e_ = (x);                                                \
        if (e_ != CL_SUCCESS) {                                         \
            printf("error %s failed with OpenCL error %d\n", what, e_); \
            fflush(stdout);                                             \
            exit(1);                                                    \
        }                                                               \
    } while (0)

static uint32_t gen(uint32_t i) { return (i * 2654435761u) ^ (i >> 5); }

struct kernel_def {
    const char *name;
    size_t in_len, out_len; // elements (uint32)
    cl_uint dims;
    size_t global[2], local[2];
    int zero_out; // clear the output before each run (accumulating kernels)
};

#define N22 ((size_t)1 << 22)
static struct kernel_def defs[] = {
    {"reduce256", 256 * 256, 256, 1, {256 * 256, 1}, {256, 1}, 0},
    {"rotate128", 64 * 1024, 64 * 1024, 1, {64 * 1024, 1}, {1024, 1}, 0},
    {"hash16", 0, N22, 1, {N22, 1}, {1024, 1}, 0},
    {"store3", 0, N22, 1, {N22, 1}, {1024, 1}, 0},
    {"stencil2d", N22, N22, 2, {2048, 2048}, {16, 16}, 0},
    {"histogram", N22, 256, 1, {1024 * 256, 1}, {256, 1}, 1},
};
#define NDEFS (sizeof defs / sizeof defs[0])

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (fread(s, 1, n, f) != (size_t)n) { fclose(f); free(s); return NULL; }
    s[n] = 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv) {
    if (argc != 2) { printf("error usage: harness KERNELS.cl\n"); return 2; }
    char *src = read_file(argv[1]);
    if (!src) { printf("error cannot read %s\n", argv[1]); return 2; }
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np), "clGetPlatformIDs");
    cl_device_id dev = NULL;
    for (cl_uint p = 0; p < np && !dev; p++)
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_CPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) { printf("error no OpenCL CPU device (is pocl-opencl-icd installed?)\n"); return 1; }
    char name[256] = {0};
    cl_uint cus = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err, "clCreateCommandQueue");
    cl_program prog = clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &err);
    CHECK(err, "clCreateProgramWithSource");
    if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        char log[8192] = {0};
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        for (char *c = log; *c; c++) if (*c == '\n') *c = ' ';
        printf("error build failed: %s\n", log);
        return 1;
    }
    cl_kernel kernels[NDEFS];
    cl_mem ins[NDEFS], outs[NDEFS];
    uint32_t *host = malloc(N22 * sizeof(uint32_t));
    for (size_t i = 0; i < N22; i++) host[i] = gen((uint32_t)i);
    for (size_t k = 0; k < NDEFS; k++) {
        kernels[k] = clCreateKernel(prog, defs[k].name, &err);
        CHECK(err, "clCreateKernel");
        cl_uint arg = 0;
        ins[k] = NULL;
        if (defs[k].in_len) {
            ins[k] = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    defs[k].in_len * 4, host, &err);
            CHECK(err, "clCreateBuffer(in)");
            CHECK(clSetKernelArg(kernels[k], arg++, sizeof(cl_mem), &ins[k]), "clSetKernelArg");
        }
        outs[k] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, defs[k].out_len * 4, NULL, &err);
        CHECK(err, "clCreateBuffer(out)");
        CHECK(clSetKernelArg(kernels[k], arg++, sizeof(cl_mem), &outs[k]), "clSetKernelArg");
        if (!strcmp(defs[k].name, "stencil2d")) {
            cl_uint w = 2048, h = 2048;
            CHECK(clSetKernelArg(kernels[k], arg++, sizeof w, &w), "clSetKernelArg");
            CHECK(clSetKernelArg(kernels[k], arg++, sizeof h, &h), "clSetKernelArg");
        }
    }
    printf("ready %u %s\n", cus, name);
    fflush(stdout);

    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char kname[64], dump[3000];
        int runs = 0;
        if (sscanf(line, "run %63s %d %2999s", kname, &runs, dump) != 3 || runs < 1) {
            printf("error bad command: %s", line);
            fflush(stdout);
            continue;
        }
        size_t k = 0;
        while (k < NDEFS && strcmp(defs[k].name, kname)) k++;
        if (k == NDEFS) { printf("error unknown kernel %s\n", kname); fflush(stdout); continue; }
        struct kernel_def *d = &defs[k];
        printf("ok");
        for (int r = 0; r < runs; r++) {
            if (d->zero_out) {
                cl_uint zero = 0;
                CHECK(clEnqueueFillBuffer(q, outs[k], &zero, sizeof zero, 0, d->out_len * 4, 0, NULL, NULL), "fill");
                CHECK(clFinish(q), "clFinish");
            }
            double t0 = now_ns();
            CHECK(clEnqueueNDRangeKernel(q, kernels[k], d->dims, NULL, d->global, d->local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
            CHECK(clFinish(q), "clFinish");
            printf(" %.0f", now_ns() - t0);
        }
        printf("\n");
        if (strcmp(dump, "-")) {
            uint32_t *o = malloc(d->out_len * 4);
            CHECK(clEnqueueReadBuffer(q, outs[k], CL_TRUE, 0, d->out_len * 4, o, 0, NULL, NULL), "read");
            FILE *f = fopen(dump, "wb");
            if (f) { fwrite(o, 4, d->out_len, f); fclose(f); }
            free(o);
        }
        fflush(stdout);
    }
    return 0;
}
