#pragma once
#include <string_view>
#include <vector>

namespace kernelgen {

// The environment a validation worker runs in. The worker runs untrusted kernels and asks no model, so it
// gets an allowlist, not this process's environment less what looks secret: what the Vulkan loader and
// drivers read (VK_*, MESA_*, LP_*, GALLIUM_*, RADV_*, ..., XDG_* where the loader finds drivers), what picks
// the device (KERNELGEN_*, CTEST_RESOURCE_GROUP_*), the sanitizers' options, PATH, HOME, TMPDIR and
// LD_LIBRARY_PATH. A name that looks like a secret (an *_API_KEY, *_TOKEN, *_SECRET*, *_PASSWORD*) is dropped
// even under an allowed prefix. No display (DISPLAY, WAYLAND_DISPLAY), no agents' sockets, no cloud
// credentials.
bool worker_gets_variable(std::string_view name);

// The entries of `environment` (NAME=value strings, null-terminated, as `environ`) that a worker gets. They
// stay the caller's; the vector only lists them, null-terminated, for posix_spawn.
std::vector<char*> worker_environment(char** environment);

}  // namespace kernelgen
