#!/usr/bin/env python3
"""ops_new_folder_picked_up: an op's C hooks are found from its folder alone. A scratch src/ops holding one new
folder (test.NewOp, with a host_hook.c and a reference_hook.c that declare their hooks, and no other file) is
given to cmake/ops_table.cmake; src/ops/registry.c and registry_tools.c, compiled against the table it writes
and linked with the two hook files, must then find the op by id (ops_find, ops_tools_find), its reference by
name and its generator by name, and call them. Nothing outside the new folder is edited.

usage: ops_new_folder.py SOURCE_DIR CC CMAKE [CFLAGS...]
"""
import os
import subprocess
import sys
import tempfile

src, cc, cmake = sys.argv[1:4]
cflags = sys.argv[4:]

HOST = r'''
#include "ops/ops.h"
static wgk_status check(const ops_call *call, util_error *err) { (void)call; (void)err; return (wgk_status)42; }
WGK_OP_HOST_HOOKS(test_NewOp) = {.op_id = "test.NewOp", .host_check = check};
'''
TOOLS = r'''
#include "ops/ops.h"
static wgk_status ref(ops_ref_io *io, util_error *err) { (void)io; (void)err; return (wgk_status)43; }
static const ops_generator gens[] = {{.name = "new_op_ramp"}};
WGK_OP_TOOL_HOOKS(test_NewOp) = {.op_id = "test.NewOp", .reference_name = "new_op", .reference = ref,
                                 .generators = gens, .n_generators = 1};
'''
MAIN = r'''
#include <stdio.h>
#include "ops/ops.h"
int main(void) {
  const ops_hooks *h = ops_find("test.NewOp"), *t = ops_tools_find("test.NewOp");
  if (!h || !h->host_check || h->host_check(NULL, NULL) != (wgk_status)42) return puts("ops_find: not found"), 1;
  if (!t || ops_tools_count() != 1 || ops_tools_find_reference("new_op") != t) return puts("tools: not found"), 1;
  if (t->reference(NULL, NULL) != (wgk_status)43) return puts("reference: wrong hook"), 1;
  if (!ops_tools_find_generator("new_op_ramp")) return puts("generator: not found"), 1;
  if (ops_find("ai.onnx.RotaryEmbedding")) return puts("an op that has no folder here was found"), 1;
  puts("test.NewOp found by its folder alone");
  return 0;
}
'''

with tempfile.TemporaryDirectory() as tmp:
    op = os.path.join(tmp, "ops", "test.NewOp")
    os.makedirs(op)
    for name, text in (("host_hook.c", HOST), ("reference_hook.c", TOOLS)):
        with open(os.path.join(op, name), "w") as f:
            f.write(text)
    with open(os.path.join(tmp, "main.c"), "w") as f:
        f.write(MAIN)
    gen = os.path.join(tmp, "gen")
    os.makedirs(gen)
    r = subprocess.run([cmake, f"-DOPS_DIR={os.path.join(tmp, 'ops')}", f"-DOUT={os.path.join(gen, 'ops_table.inc')}",
                        "-P", os.path.join(src, "cmake", "ops_table.cmake")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ops_table.cmake failed: {r.stderr}")
    print(open(os.path.join(gen, "ops_table.inc")).read().strip())
    exe = os.path.join(tmp, "t")
    r = subprocess.run([cc, *cflags, "-Wall", "-Wextra", "-Werror", "-I", os.path.join(src, "src"),
                        "-I", os.path.join(src, "include"), "-I", gen, "-o", exe, os.path.join(tmp, "main.c"),
                        os.path.join(src, "src", "ops", "registry.c"), os.path.join(src, "src", "ops", "registry_tools.c"),
                        os.path.join(op, "host_hook.c"), os.path.join(op, "reference_hook.c")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compile failed: {r.stderr[:2000]}")
    r = subprocess.run([exe], capture_output=True, text=True)
    print(r.stdout.strip())
    sys.exit(r.returncode)
