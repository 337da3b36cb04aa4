"""BL432: questions to torch's runtime (threads, devices, backends, memory, type promotion) that
dynamo runs as ops and cannot put in a graph, since their answer is a Python value."""

from __future__ import annotations

import libcst as cst

from .base import register
from .by_name import CallRule

# Probed on torch 2.13 first ("torch.* op returned non-Tensor", GB0208; `is_inference_mode_enabled`:
# GB0046; `typename` and `backends.mkldnn.is_available`: functions dynamo skips, GB0007), and
# calibrated in fixtures/BL432.py. Not here, since they trace: `torch.cuda.is_available()`,
# `torch.get_default_dtype()`, `torch.is_grad_enabled()`, `torch.promote_types(...)`,
# `torch.are_deterministic_algorithms_enabled()`, `torch.backends.cudnn.version()`, `torch.jit.is_tracing()`
# (but `torch._C._is_tracing()`, what older code copied of it, breaks), `torch.is_autocast_enabled()`,
# `torch.is_tensor`, `torch.is_floating_point(x)`, `torch.is_complex(x)`. Probed again on torch 2.13 and
# 2.14.1 for the predicates on a tensor (`torch.is_inference(x)`, `torch.is_same_size(a, b)`, ...) and
# `torch.can_cast`: GB0208 on both.

# questions about a tensor that torch answers from its metadata, outside any graph (the methods of the
# same names are BL434's)
TENSOR_QUESTIONS = frozenset({"torch.is_inference", "torch.is_same_size", "torch.is_signed", "torch.is_conj",
                              "torch.is_neg"})
RUNTIME_QUERIES = frozenset({
    "torch.get_num_threads", "torch.get_num_interop_threads", "torch.get_default_device",
    "torch.get_float32_matmul_precision", "torch.is_inference_mode_enabled", "torch.result_type",
    "torch.is_storage", "torch.typename", "torch.is_anomaly_enabled", "torch.is_warn_always_enabled",
    "torch._C._is_tracing", "torch._C._get_cudnn_enabled",
    "torch.cuda.device_count", "torch.cuda.is_bf16_supported", "torch.cuda.memory_allocated",
    "torch.cuda.max_memory_allocated",
    "torch.backends.cuda.is_built", "torch.backends.cudnn.is_available", "torch.backends.openmp.is_available",
    "torch.backends.mkldnn.is_available", "torch.backends.mps.is_available", "torch.is_vulkan_available",
    "torch.can_cast", "torch.is_deterministic_algorithms_warn_only_enabled", "torch.get_deterministic_debug_mode",
}) | TENSOR_QUESTIONS


@register
class RuntimeQuery(CallRule):
    CODE = "BL432"
    NAME = "runtime-query"
    KIND = "break"
    MESSAGE = ("a question to torch's runtime (`torch.get_num_threads()`, `torch.cuda.device_count()`, "
               "`torch.backends.cudnn.is_available()`, `torch.result_type(a, b)`, ...) in compiled code: its "
               "answer is a Python value dynamo cannot put in a graph")
    SUGGESTION = ("ask once outside the compiled code (in `__init__`, or at module level) and keep the answer; "
                  "for a result dtype, `(a + b).dtype` or `torch.promote_types(a.dtype, b.dtype)` traces")
    GB_TYPES = ("GB0208", "GB0046", "GB0007")
    NAMES = RUNTIME_QUERIES

    def describe(self, node: cst.Call, what: str) -> str:
        if what in TENSOR_QUESTIONS:
            return (f"`{self.ctx.source(node)}` asks torch about a tensor's metadata (`{what}`): dynamo runs it "
                    "as an op whose answer is a Python bool, which it cannot put in a graph, and breaks")
        return (f"`{self.ctx.source(node)}` asks torch's runtime (`{what}`): dynamo runs it as an op whose "
                "answer is a Python value, which it cannot put in a graph, and breaks")
