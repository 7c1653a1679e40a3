/*
 * The persistent pipeline cache: Dawn's blob-cache callbacks (WGPUDawnCacheDeviceDescriptor) backed by files,
 * one per blob, in $XDG_CACHE_HOME/wgk/pipelines/<adapter key>/ (else ~/.cache/...). A file holds its key, so a
 * hash collision is a miss; a file whose header, size or checksum is wrong is ignored and removed; files are
 * written to a temporary name and renamed, so a reader never sees half a blob; the folder is kept under a size
 * cap by removing the oldest files. GPU-free (tests drive it directly).
 * The context options pipeline_cache, pipeline_cache_max_bytes and pipeline_cache_log (or their variables
 * WGK_PIPELINE_CACHE...) turn it off, set the cap (default 256 MiB) and send the counts below to the log when the
 * device goes.
 */
#ifndef WGK_GPU_BLOB_CACHE_H
#define WGK_GPU_BLOB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WGK_BLOB_CACHE_MAX_DEFAULT (256ull << 20)

typedef struct gpu_blob_cache gpu_blob_cache;

typedef struct gpu_blob_counts {
  uint64_t loaded;  /* blobs handed to Dawn */
  uint64_t missed;  /* asked for, not there */
  uint64_t stored;  /* blobs written */
  uint64_t corrupt; /* files ignored (and removed) */
  uint64_t evicted; /* files removed for the cap */
} gpu_blob_counts;

/* The cache in dir (created, parents included); NULL when it cannot be made. */
gpu_blob_cache *gpu_blob_cache_open(const char *dir, uint64_t max_bytes);
void gpu_blob_cache_close(gpu_blob_cache *c);
const char *gpu_blob_cache_path(const gpu_blob_cache *c);
gpu_blob_counts gpu_blob_cache_counts(gpu_blob_cache *c);
/* Dawn's callbacks (userdata: the cache). load with value NULL or valueSize 0: the size of the blob (0: none). */
size_t gpu_blob_cache_load(const void *key, size_t key_size, void *value, size_t value_size, void *userdata);
void gpu_blob_cache_store(const void *key, size_t key_size, const void *value, size_t value_size, void *userdata);

/* The folder for an adapter: $XDG_CACHE_HOME (else $HOME/.cache) /wgk/pipelines/<16 hex digits of the hash of
 * adapter_id>. False when neither variable is set or the path is too long. */
bool gpu_blob_cache_dir(const char *adapter_id, char *out, size_t size);

#endif
