# Sourced by the GPU scripts on a lent GPU machine (scripts/gpu-prep.sh prepares what they carry): unpacks the
# carried Vulkan loader (.gl) and the libraries the image lacks (.devlibs), Dawn (.device/dawn.tar.xz), and points
# Vulkan at the NVIDIA driver and the loader at BUILD's libwgk and the tree's kernels/.
BUILD=${BUILD:-build}
dawn=$PWD/third_party/dawn/node_modules/bun-webgpu-linux-x64
if [ -f .device/dawn.tar.xz ]; then mkdir -p /tmp/dawn && tar xJf .device/dawn.tar.xz -C /tmp/dawn && dawn=/tmp/dawn; fi
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
ldconfig
mkdir -p /tmp/devlibs
for f in .devlibs/*.deb; do [ -f "$f" ] && dpkg -x "$f" /tmp/devlibs; done
export LD_LIBRARY_PATH=/tmp/devlibs/usr/lib/x86_64-linux-gnu:$dawn:$PWD/$BUILD
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
export WGK_SOURCE_DIR=$PWD
export WGK_KERNEL_PATH=${WGK_KERNEL_PATH:-$PWD/kernels}  # a moved build looks for kernels/ only on the search path
