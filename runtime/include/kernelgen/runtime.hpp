#pragma once
// Everything a generated wrapper's user needs: the device, buffers, kernels and sequences.
#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/error.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/scratch_buffers.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/timing.hpp"
