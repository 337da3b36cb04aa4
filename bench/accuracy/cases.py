"""The models and functions the accuracy harness runs under dynamo, found by introspection.

Each case is a factory named `<library>__<group>__<Name>`; `python -m breaklint.dynamic.worker
bench/accuracy/cases.py:<case> OUT` builds it with random weights and a small input and runs
it. Cases are chosen by rule (every no-argument module of a namespace, every conv layer that
takes in/out channels, every binary metric, every module whose required arguments are sizes,
every solver method of an ODE or SDE library, ...), never by what breaklint says about them. A
case that cannot be built or run eagerly is reported as failed and left out of the scores.
`HELD_OUT` names the third of the libraries that is held out (see `run.py`).

    python bench/accuracy/cases.py            # list the case names
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from typing import Any, Callable

Case = tuple  # (callable, args) or (callable, args, kwargs)


def _img(*shape: int):
    import torch

    return torch.rand(*shape)


def _tokens(*shape: int):
    """Token ids, for a module whose forward embeds its input (below 8, the smallest vocabulary and
    length `_fill` gives)."""
    import torch

    return torch.randint(0, 8, shape)


def _no_arg_modules(namespace: str) -> list[str]:
    """Public nn.Module classes of a namespace that can be built without arguments."""
    import torch

    mod = importlib.import_module(namespace)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for name in names:
        cls = getattr(mod, name, None)
        if not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module)) or inspect.isabstract(cls):
            continue
        try:
            params = inspect.signature(cls).parameters.values()
        except (TypeError, ValueError):
            continue
        if all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            out.append(name)
    return sorted(set(out))


def _required_inputs(module: Any) -> int:
    try:
        params = inspect.signature(module.forward).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


# ---------------------------------------------------------------------- kornia
KORNIA_NAMESPACES = {
    "aug": "kornia.augmentation",
    "filters": "kornia.filters",
    "color": "kornia.color",
    "enhance": "kornia.enhance",
    "losses": "kornia.losses",
    "morph": "kornia.morphology",
    "feature": "kornia.feature",
    "transform": "kornia.geometry.transform",
}


def kornia_names() -> list[str]:
    out = []
    for group, ns in KORNIA_NAMESPACES.items():
        for name in _no_arg_modules(ns):
            if name.endswith(("Sequential", "Base", "Container", "Dispatcher")) or "Video" in name:
                continue
            out.append(f"kornia__{group}__{name}")
    return out


def kornia_case(group: str, name: str) -> Case:
    import torch

    cls = getattr(importlib.import_module(KORNIA_NAMESPACES[group]), name)
    kwargs = {}
    if "p" in inspect.signature(cls).parameters:
        kwargs["p"] = 1.0
    module = cls(**kwargs)
    torch.manual_seed(0)
    three_d = name.endswith("3D")
    img = _img(2, 3, 8, 16, 16) if three_d else _img(2, 3, 32, 32)
    n = _required_inputs(module)
    if group == "losses" and n >= 2:
        target = torch.randint(0, 3, (2, 32, 32)) if "Focal" in name or "Dice" in name or "Tversky" in name \
            or "Lovasz" in name else _img(2, 3, 32, 32)
        return module, (img, target)
    return module, tuple([img] + [_img(*img.shape) for _ in range(max(n - 1, 0))])


# ---------------------------------------------------------------------- torch_geometric
def pyg_names() -> list[str]:
    import torch_geometric.nn.aggr as aggr
    import torch_geometric.nn.conv as conv

    out = []
    for name in conv.__all__:
        cls = getattr(conv, name)
        try:
            params = list(inspect.signature(cls).parameters.values())
        except (TypeError, ValueError):
            continue
        required = [p.name for p in params if p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        if required == ["in_channels", "out_channels"]:
            out.append(f"pyg__conv__{name}")
    for name in aggr.__all__:
        cls = getattr(aggr, name)
        if not inspect.isclass(cls) or name in ("Aggregation", "MultiAggregation"):
            continue
        params = inspect.signature(cls).parameters.values()
        if all(p.default is not p.empty or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
            out.append(f"pyg__aggr__{name}")
    for name in ("GCN", "GraphSAGE", "GIN", "GAT", "EdgeCNN"):
        out.append(f"pyg__models__{name}")
    for name in ("global_mean_pool", "global_max_pool", "global_add_pool"):
        out.append(f"pyg__pool__{name}")
    return out


def _graph():
    import torch

    torch.manual_seed(0)
    x = torch.rand(12, 8)
    src = torch.arange(12).repeat(2)
    dst = torch.cat([(torch.arange(12) + 1) % 12, (torch.arange(12) + 3) % 12])
    return x, torch.stack([src, dst])


def pyg_case(group: str, name: str) -> Case:
    import torch

    x, edge_index = _graph()
    if group == "conv":
        cls = getattr(importlib.import_module("torch_geometric.nn.conv"), name)
        return cls(8, 8), (x, edge_index)
    if group == "aggr":
        cls = getattr(importlib.import_module("torch_geometric.nn.aggr"), name)
        index = torch.tensor([0] * 6 + [1] * 6)
        return cls(), (x, index)
    if group == "models":
        cls = getattr(importlib.import_module("torch_geometric.nn.models"), name)
        return cls(8, 16, num_layers=2), (x, edge_index)
    fn = getattr(importlib.import_module("torch_geometric.nn.pool"), name)
    return fn, (x, torch.tensor([0] * 6 + [1] * 6))


# ---------------------------------------------------------------------- torchmetrics
TM_MODULES = {
    "reg": "torchmetrics.functional.regression",
    "cls": "torchmetrics.functional.classification",
    "img": "torchmetrics.functional.image",
}


def tm_names() -> list[str]:
    out = []
    for group, ns in TM_MODULES.items():
        mod = importlib.import_module(ns)
        for name in getattr(mod, "__all__", []):
            fn = getattr(mod, name)
            if not inspect.isfunction(fn):
                continue
            params = list(inspect.signature(fn).parameters.values())
            required = [p.name for p in params if p.default is p.empty]
            if group == "cls" and not (name.startswith("binary_") or name.startswith("multiclass_")):
                continue
            if group == "cls" and name.startswith("multiclass_") and required != ["preds", "target", "num_classes"]:
                continue
            if group != "cls" or name.startswith("binary_"):
                if required != ["preds", "target"]:
                    continue
            out.append(f"tm__{group}__{name}")
    return out


def tm_case(group: str, name: str) -> Case:
    import torch

    fn = getattr(importlib.import_module(TM_MODULES[group]), name)
    torch.manual_seed(0)
    if group == "reg":
        preds, target = torch.rand(16) + 0.1, torch.rand(16) + 0.1
        return fn, (preds, target)
    if group == "img":
        return fn, (_img(2, 3, 32, 32), _img(2, 3, 32, 32))
    if name.startswith("binary_"):
        return fn, (torch.rand(16), torch.randint(0, 2, (16,)))
    return fn, (torch.softmax(torch.rand(16, 4), -1), torch.randint(0, 4, (16,)), 4)


# ---------------------------------------------------------------------- monai
def _monai_nets() -> dict[str, Callable[[], Case]]:
    import monai.networks.nets as N

    def img2(c=1, s=32):
        return (_img(1, c, s, s),)

    return {
        "UNet": lambda: (N.UNet(2, 1, 2, (4, 8, 16), (2, 2)), img2()),
        "BasicUNet": lambda: (N.BasicUNet(2, 1, 2, features=(4, 4, 8, 16, 32, 4)), img2()),
        "SegResNet": lambda: (N.SegResNet(2, init_filters=4, in_channels=1, out_channels=2), img2()),
        "AttentionUnet": lambda: (N.AttentionUnet(2, 1, 2, (4, 8, 16), (2, 2)), img2()),
        "DenseNet121": lambda: (N.DenseNet121(2, 1, 3), img2()),
        "ResNet": lambda: (N.resnet10(spatial_dims=2, n_input_channels=1, num_classes=3), img2()),
        "DynUNet": lambda: (N.DynUNet(2, 1, 2, [3, 3, 3], [1, 2, 2], [2, 2], filters=[4, 8, 16]), img2()),
        "UNETR": lambda: (N.UNETR(1, 2, (32, 32), feature_size=4, hidden_size=48, mlp_dim=96, num_heads=4,
                                  spatial_dims=2), img2()),
        "SwinUNETR": lambda: (N.SwinUNETR(in_channels=1, out_channels=2, feature_size=12,
                                          spatial_dims=2), img2(1, 64)),
        "VNet": lambda: (N.VNet(2, 1, 2), img2(1, 32)),
        "AutoEncoder": lambda: (N.AutoEncoder(2, 1, 1, (4, 8), (2, 2)), img2()),
        "VarAutoEncoder": lambda: (N.VarAutoEncoder(2, (32, 32), 1, 1, 4, (4, 8), (2, 2)), img2()),
        "HighResNet": lambda: (N.HighResNet(2, 1, 2), img2()),
        "ViT": lambda: (N.ViT(1, (32, 32), (8, 8), hidden_size=48, mlp_dim=96, num_layers=2, num_heads=4,
                              spatial_dims=2, classification=True), img2()),
        "SegResNetVAE": lambda: (N.SegResNetVAE((32, 32), spatial_dims=2, init_filters=4, in_channels=1,
                                                out_channels=2), img2()),
        "Regressor": lambda: (N.Regressor((1, 32, 32), (3,), (4, 8), (2, 2)), img2()),
        "Classifier": lambda: (N.Classifier((1, 32, 32), 3, (4, 8), (2, 2)), img2()),
        "Generator": lambda: (N.Generator(16, (4, 8, 8), (8, 1), (2, 2)), (_img(1, 16),)),
        "SENet": lambda: (N.SEResNet50(spatial_dims=2, in_channels=1, num_classes=3), img2(1, 64)),
        "EfficientNetBN": lambda: (N.EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=2,
                                                    in_channels=1, num_classes=3), img2(1, 64)),
        "UNETR_PP": lambda: (N.BasicUNetPlusPlus(2, 1, 2, features=(4, 4, 8, 16, 32, 4)), img2()),
        "MedNeXt": lambda: (N.MedNeXt(spatial_dims=2, in_channels=1, out_channels=2, init_filters=4), img2()),
        "SegResNetDS": lambda: (N.SegResNetDS(spatial_dims=2, init_filters=4, in_channels=1, out_channels=2),
                                img2()),
        "FullyConnectedNet": lambda: (N.FullyConnectedNet(8, 2, [16, 16]), (_img(4, 8),)),
        "DAF3D": lambda: (N.DAF3D(1, 2), (_img(1, 1, 32, 32, 32),)),
        "MILModel": lambda: (N.MILModel(3, pretrained=False), (_img(1, 2, 3, 64, 64),)),
        "QuickNAT": lambda: (N.Quicknat(num_classes=2, num_channels=1, num_filters=8), img2(1, 64)),
        "VoxelMorphUNet": lambda: (N.VoxelMorphUNet(2, 2, (4, 8), (8, 4), final_conv_channels=(4,)), img2(2)),
    }


def monai_names() -> list[str]:
    out = [f"monai__nets__{n}" for n in _monai_nets()]
    import monai.losses as L
    import torch

    for name in sorted(dir(L)):
        cls = getattr(L, name)
        if inspect.isclass(cls) and issubclass(cls, torch.nn.Module) and name.endswith("Loss"):
            params = inspect.signature(cls).parameters.values()
            if all(p.default is not p.empty or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
                out.append(f"monai__losses__{name}")
    return out + [f"monai__det__{n}" for n in MONAI_DETECTION]


# detection: RetinaNet's inference with its post-processing (a feature extractor of the case's own:
# MONAI's takes torchvision's, which the harness leaves out, as it does the training path's matcher),
# the box utilities (NMS, IoU, clipping, mode conversion), the ATSS matcher, the hard-negative
# sampler and the box coder, each on a few boxes
MONAI_DETECTION = ("RetinaNetDetector", "non_max_suppression", "batched_nms", "box_iou", "box_giou", "box_pair_giou",
                   "clip_boxes_to_image", "convert_box_mode", "centers_in_boxes", "boxes_center_distance",
                   "ATSSMatcher", "HardNegativeSampler", "BoxCoder_encode", "BoxCoder_decode")
MONAI_DETECTION_ENTRIES = {
    "ATSSMatcher": ["monai.apps.detection.utils.ATSS_matcher.Matcher.__call__"],
    "HardNegativeSampler": ["monai.apps.detection.utils.hard_negative_sampler.HardNegativeSampler.__call__"],
    "BoxCoder_encode": ["monai.apps.detection.utils.box_coder.BoxCoder.encode_single"],
    "BoxCoder_decode": ["monai.apps.detection.utils.box_coder.BoxCoder.decode_single"],
}


def _monai_detection(name: str) -> Case:
    import torch

    boxes = torch.tensor([[0.0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [21, 19, 29, 31]])
    scores = torch.tensor([0.9, 0.8, 0.7, 0.6])
    if name == "RetinaNetDetector":
        from monai.apps.detection.networks.retinanet_detector import RetinaNetDetector
        from monai.apps.detection.networks.retinanet_network import RetinaNet
        from monai.apps.detection.utils.anchor_utils import AnchorGeneratorWithAnchorShape

        class Features(torch.nn.Module):
            out_channels = 8

            def __init__(self):
                super().__init__()
                self.c1 = torch.nn.Conv2d(1, 8, 3, stride=2, padding=1)
                self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)

            def forward(self, x):
                a = self.c1(x)
                return {"0": a, "1": self.c2(a)}

        anchors = AnchorGeneratorWithAnchorShape(feature_map_scales=[2, 4], base_anchor_shapes=((8, 8), (16, 16)))
        net = RetinaNet(spatial_dims=2, num_classes=3, num_anchors=2, feature_extractor=Features(), size_divisible=32)
        detector = RetinaNetDetector(network=net, anchor_generator=anchors, spatial_dims=2, num_classes=3,
                                     size_divisible=32)
        detector.set_box_selector_parameters(score_thresh=0.0, topk_candidates_per_level=50, nms_thresh=0.5,
                                             detections_per_img=10)
        return detector.eval(), (torch.randn(2, 1, 64, 64),)
    if name in ("ATSSMatcher", "HardNegativeSampler") or name.startswith("BoxCoder"):
        from monai.apps.detection.utils.ATSS_matcher import ATSSMatcher
        from monai.apps.detection.utils.box_coder import BoxCoder
        from monai.apps.detection.utils.hard_negative_sampler import HardNegativeSampler

        anchors = torch.cat([boxes + 2, boxes - 1, boxes * 1.5])
        if name == "ATSSMatcher":
            return ATSSMatcher(num_candidates=2, center_in_gt=False), (boxes[:2], anchors, [8, 4], 1)
        if name == "HardNegativeSampler":
            sampler = HardNegativeSampler(batch_size_per_image=8, positive_fraction=0.3, min_neg=2, pool_size=2)
            labels = [torch.tensor([0, 1, -1, 0, 2, 0]), torch.tensor([1, 0, 0, -1, 0, 0])]
            return sampler, (labels, torch.rand(12))
        coder = BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        if name == "BoxCoder_encode":
            return coder.encode_single, (boxes, anchors[:4])
        return coder.decode_single, (torch.randn(4, 4) * 0.1, boxes)
    from monai.data import box_utils

    fn = getattr(box_utils, name)
    if name == "non_max_suppression":
        return (lambda b, s: fn(b, s, 0.5)), (boxes, scores)
    if name == "batched_nms":
        return (lambda b, s, i: fn(b, s, i, 0.5)), (boxes, scores, torch.tensor([0, 0, 1, 1]))
    if name == "clip_boxes_to_image":
        return (lambda b: fn(b, (16, 16))), (boxes,)
    if name == "convert_box_mode":
        return (lambda b: fn(b, src_mode="xyxy", dst_mode="ccwh")), (boxes,)
    if name == "centers_in_boxes":
        return fn, (boxes[:, :2] + 3, boxes)
    return fn, (boxes, boxes.flip(0))


def monai_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    if group == "nets":
        return _monai_nets()[name]()
    if group == "det":
        return _monai_detection(name)
    cls = getattr(importlib.import_module("monai.losses"), name)
    loss = cls()
    pred = torch.rand(2, 3, 16, 16, requires_grad=True)
    target = (torch.rand(2, 3, 16, 16) > 0.5).float()
    return loss, (pred, target)


# ---------------------------------------------------------------------- diffusers
def _diffusers() -> dict[str, Callable[[], Case]]:
    import torch
    from diffusers import (AutoencoderKL, DiTTransformer2DModel, UNet1DModel, UNet2DConditionModel,
                           UNet2DModel, VQModel)

    t = torch.tensor([10])
    return {
        "UNet2DModel": lambda: (UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                                            block_out_channels=(8, 16), norm_num_groups=4,
                                            down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                                            up_block_types=("AttnUpBlock2D", "UpBlock2D")),
                                (_img(1, 3, 16, 16), t)),
        "UNet2DConditionModel": lambda: (UNet2DConditionModel(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(8, 16),
            norm_num_groups=4, cross_attention_dim=16, attention_head_dim=4,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D")),
            (_img(1, 4, 16, 16), t, _img(1, 5, 16))),
        "AutoencoderKL": lambda: (AutoencoderKL(block_out_channels=(8, 16), norm_num_groups=4, latent_channels=4,
                                                down_block_types=("DownEncoderBlock2D",) * 2,
                                                up_block_types=("UpDecoderBlock2D",) * 2),
                                  (_img(1, 3, 32, 32),)),
        "VQModel": lambda: (VQModel(block_out_channels=(8, 16), norm_num_groups=4, latent_channels=4,
                                    num_vq_embeddings=16, down_block_types=("DownEncoderBlock2D",) * 2,
                                    up_block_types=("UpDecoderBlock2D",) * 2), (_img(1, 3, 32, 32),)),
        "UNet1DModel": lambda: (UNet1DModel(sample_size=32, in_channels=2, out_channels=2,
                                            block_out_channels=(8, 16, 16), extra_in_channels=16,
                                            down_block_types=("DownBlock1DNoSkip", "DownBlock1D", "AttnDownBlock1D"),
                                            up_block_types=("AttnUpBlock1D", "UpBlock1D", "UpBlock1DNoSkip"),
                                            mid_block_type="UNetMidBlock1D", out_block_type=None,
                                            act_fn="mish", use_timestep_embedding=False),
                                (_img(1, 2, 32), t)),
        "DiTTransformer2DModel": lambda: (DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=8,
                                                                in_channels=4, num_layers=1, sample_size=8,
                                                                patch_size=2, num_embeds_ada_norm=10),
                                          (_img(1, 4, 8, 8), t, torch.tensor([1]))),
    }


def diffusers_names() -> list[str]:
    return [f"diffusers__models__{n}" for n in _diffusers()] + [
        f"diffusers__sched__{n}" for n in ("DDPMScheduler", "DDIMScheduler", "EulerDiscreteScheduler",
                                           "DPMSolverMultistepScheduler", "PNDMScheduler",
                                           "LMSDiscreteScheduler", "HeunDiscreteScheduler")]


def diffusers_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    if group == "models":
        return _diffusers()[name]()
    import diffusers

    scheduler = getattr(diffusers, name)(num_train_timesteps=100)
    scheduler.set_timesteps(10)
    sample = _img(1, 4, 8, 8)
    step = scheduler.timesteps[0]

    def one_step(model_output, sample):
        return scheduler.step(model_output, step, sample).prev_sample

    return one_step, (_img(1, 4, 8, 8), sample)


# ---------------------------------------------------------------------- x-transformers
def _xt() -> dict[str, Callable[[], Case]]:
    import torch
    from x_transformers import (ContinuousTransformerWrapper, Decoder, Encoder, TransformerWrapper,
                                ViTransformerWrapper, XTransformer)

    tokens = torch.randint(0, 64, (2, 16))
    return {
        "Decoder": lambda: (TransformerWrapper(num_tokens=64, max_seq_len=32,
                                               attn_layers=Decoder(dim=32, depth=2, heads=2)), (tokens,)),
        "DecoderRotary": lambda: (TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Decoder(
            dim=32, depth=2, heads=2, rotary_pos_emb=True, attn_flash=False)), (tokens,)),
        "Encoder": lambda: (TransformerWrapper(num_tokens=64, max_seq_len=32,
                                               attn_layers=Encoder(dim=32, depth=2, heads=2)), (tokens,)),
        "EncoderAlibi": lambda: (TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Encoder(
            dim=32, depth=2, heads=2, alibi_pos_bias=True)), (tokens,)),
        "Continuous": lambda: (ContinuousTransformerWrapper(dim_in=8, dim_out=8, max_seq_len=32,
                                                            attn_layers=Encoder(dim=32, depth=2, heads=2)),
                               (_img(2, 16, 8),)),
        "ViT": lambda: (ViTransformerWrapper(image_size=32, patch_size=8,
                                             attn_layers=Encoder(dim=32, depth=2, heads=2)), (_img(2, 3, 32, 32),)),
        "XTransformer": lambda: (XTransformer(dim=32, enc_num_tokens=64, enc_depth=1, enc_heads=2,
                                              enc_max_seq_len=32, dec_num_tokens=64, dec_depth=1, dec_heads=2,
                                              dec_max_seq_len=32), (tokens, tokens)),
    }


def xt_names() -> list[str]:
    return [f"xt__models__{n}" for n in _xt()]


def xt_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    return _xt()[name]()


# ---------------------------------------------------------------------- generic modules
# Libraries added with the held-out split get their cases by one rule: every public nn.Module
# class of the namespaces below whose required arguments `_fill` can name, built with small sizes,
# and fed the first of `_SHAPES` it runs on eagerly (tried on a copy, so the case's own first call
# is still the module's first call). A module whose output is a distribution is scored through the
# log-density of a sample of it, as a user who trains a flow would compile it.
GENERIC = {
    "normflows": {"flows": "normflows.flows", "dist": "normflows.distributions"},
    "e3nn": {"nn": "e3nn.nn", "o3": "e3nn.o3"},
    "zuko": {"flows": "zuko.flows"},
    "vq": {"quant": "vector_quantize_pytorch"},
    "tabnet": {"net": "pytorch_tabnet.tab_network", "sparse": "pytorch_tabnet.sparsemax"},
    "gpytorch": {"kernels": "gpytorch.kernels", "means": "gpytorch.means"},
    "pyro": {"transforms": "pyro.distributions.transforms", "nn": "pyro.nn"},
    "nflows": {"transforms": "nflows.transforms", "nets": "nflows.nn.nets"},
    # added with the third round of libraries (each to its half by its own hash, as `_LATER` says)
    "auraloss": {"freq": "auraloss.freq", "time": "auraloss.time"},
    "msssim": {"ssim": "pytorch_msssim"},
    "reformer": {"attn": "reformer_pytorch"},
    "egnn": {"layers": "egnn_pytorch"},
    # the fourth round: spiking neurons, whose forward keeps and resets a membrane state
    "snn": {"neurons": "snntorch._neurons"},
    # the fifth round: audio filters and spectrograms, Perceiver and local attention, tabular nets
    "julius": {"dsp": "julius"},
    "nnaudio": {"features": "nnAudio.features"},
    "perceiver": {"blocks": "perceiver_pytorch"},
    "localattn": {"attn": "local_attention"},
    "rtdl": {"models": "rtdl_revisiting_models"},
    # the ninth round: mixtures of experts and routed attention (top-k routing, capacity, slots),
    # Performer attention
    "moe": {"moe": "mixture_of_experts"}, "stmoe": {"moe": "st_moe_pytorch"},
    "colt5": {"attn": "colt5_attention"}, "softmoe": {"moe": "soft_moe_pytorch"},
    "performer": {"attn": "performer_pytorch"},
    # the tenth round: rotary position embeddings, low-rank and routed (k-means) attention,
    # log-mel spectrograms and SpecAugment, discrete wavelet transforms
    "rotary": {"emb": "rotary_embedding_torch"}, "linformer": {"attn": "linformer"},
    "librosa": {"stft": "torchlibrosa.stft", "aug": "torchlibrosa.augmentation"},
    "routing": {"attn": "routing_transformer"}, "wavelets": {"dwt": "pytorch_wavelets"},
    # the eleventh round: tensorized and factorized layers, temporal convolutional networks (with
    # their streaming buffers)
    "tltorch": {"layers": "tltorch"}, "tcn": {"tcn": "pytorch_tcn"},
    # more of two studied libraries, by the same rule
    "monai": {"blocks": "monai.networks.blocks"},
    "diffusers": {"embed": "diffusers.models.embeddings", "norm": "diffusers.models.normalization"},
}
_SHAPES = [(4, 8), (4, 10), (2, 16, 8), (2, 8, 16, 16), (2, 8, 16), (4, 8, 8)]
# tried after the shapes above: audio losses take waveforms longer than their largest FFT, SSIM
# takes three-channel images larger than its window at every scale, LSH attention a sequence that
# its buckets divide
_LONG = {"auraloss": [(2, 1, 4096)], "msssim": [(2, 3, 32, 32), (2, 3, 176, 176)], "reformer": [(2, 128, 8)],
         "julius": [(2, 1, 4096)], "nnaudio": [(2, 16384)]}
# token ids tried after every float input: a batch of sequences as long as `_fill` makes a length
_TOKENS = [(2, 8)]
# required arguments that only one library's constructors take, by that library (before `_fill`)
_FILLS = {
    "julius": {"cutoff": 0.1, "cutoff_low": 0.1, "cutoff_high": 0.3, "cutoffs": [0.1, 0.3], "old_sr": 4,
               "new_sr": 3, "sample_rate": 16},
    "perceiver": {"max_freq": 10.0},
    "rtdl": {"d_in": 8, "d_out": 4, "d_block": 8, "d_embedding": 8, "n_features": 8, "n_cont_features": 8,
             "cat_cardinalities": [], "cardinalities": [3, 4], "n_heads": 2, "attention_n_heads": 2,
             "d_hidden_multiplier": 2, "ffn_d_hidden_multiplier": 2, "dropout": 0.0, "dropout1": 0.0,
             "dropout2": 0.0, "attention_dropout": 0.0, "ffn_dropout": 0.0, "residual_dropout": 0.0},
}
_UNFILLED = object()
_SMALL = ("heads", "layers", "blocks", "quantizers", "depth", "groups", "steps", "order", "degree")
_SIZES = ("dim", "features", "channels", "size", "count", "num", "bins", "len", "width", "n_", "hidden")


def _fill(name: str) -> Any:
    """A value for a required constructor argument, by its name alone, or _UNFILLED."""
    n = name.lower()
    if n == "spatial_dims":
        return 2
    if "irreps" in n:
        return "4x0e + 2x1o"
    if n == "levels":
        return [8, 5, 5]
    if n.endswith("shape"):
        return (8,)
    if n.endswith("dims") and "hidden" in n:
        return [16]
    if n == "codebook_size":
        return 16
    if n == "split_dim":
        return 4
    if n in ("alpha", "beta"):  # decay rates of a neuron's state
        return 0.9
    if any(t in n for t in _SMALL):
        return 2
    if any(t in n for t in _SIZES):
        return 8
    return _UNFILLED


def _constructible(cls: Any, lib: str = "") -> dict | None:
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return None
    kwargs = {}
    for p in params:
        if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        value = _FILLS.get(lib, {}).get(p.name, _UNFILLED)
        value = _fill(p.name) if value is _UNFILLED else value
        if value is _UNFILLED:
            return None
        kwargs[p.name] = value
    return kwargs


def _generic_names(lib: str) -> list[str]:
    import torch

    out = []
    for group, ns in GENERIC[lib].items():
        mod = importlib.import_module(ns)
        top = ns.split(".")[0]
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in sorted(set(names)):
            cls = getattr(mod, name, None)
            if not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module)) or inspect.isabstract(cls):
                continue
            if not cls.__module__.startswith(top) or _constructible(cls, lib) is None:
                continue
            out.append(f"{lib}__{group}__{name}")
    return out


def _as_callable(module: Any) -> Any:
    """The module, or its forward where the class's own __call__ would not run it (lazy kernels)."""
    import torch

    own_call = type(module).__call__ is not torch.nn.Module.__call__
    own_forward = type(module).forward is not torch.nn.Module.forward
    return module.forward if own_call and own_forward else module


def _generic_build(lib: str, group: str, name: str) -> tuple[Any, tuple, Any]:
    """(module, inputs, distribution or None): the module and the first inputs it runs on."""
    import copy

    import torch

    cls = getattr(importlib.import_module(GENERIC[lib][group]), name)
    torch.manual_seed(0)
    module = cls(**_constructible(cls, lib))
    n = _required_inputs(module) if type(module).forward is not torch.nn.Module.forward else 1
    last: BaseException | None = None
    # floats of each shape first, then token ids (a language model's input)
    tries = [(_img, shape) for shape in [*_SHAPES, *_LONG.get(lib, [])]] + [(_tokens, shape) for shape in _TOKENS]
    for make, shape in ([(_img, ())] if n == 0 else tries):
        inputs = tuple(make(*shape) for _ in range(n))
        try:
            with torch.no_grad():
                out = _as_callable(copy.deepcopy(module))(*inputs)
        except Exception as exc:  # not this shape
            last = exc
            continue
        dist = out if isinstance(out, torch.distributions.Distribution) else None
        return module, inputs, dist
    raise RuntimeError(f"{lib} {name}: no input shape runs: {last}")


def generic_case(lib: str, group: str, name: str) -> Case:
    import torch

    module, inputs, dist = _generic_build(lib, group, name)
    if dist is None:
        return _as_callable(module), inputs
    torch.manual_seed(1)
    sample = dist.sample((4,)) if not inputs else dist.sample()

    def log_density(*args):
        return module(*args[:-1]).log_prob(args[-1])

    return log_density, (*inputs, sample)


def _generic_entries(lib: str, group: str, name: str) -> list[str]:
    """What a user compiling the case writes in `entry-points`: nothing for a module's forward; a
    distribution's log_prob; a transform's _call where the module has no forward of its own."""
    import torch

    cls = getattr(importlib.import_module(GENERIC[lib][group]), name)
    if cls.forward is torch.nn.Module.forward:
        return [f"{cls.__module__}.{cls.__qualname__}._call"] if hasattr(cls, "_call") else []
    if lib == "zuko" or group == "dist":  # modules that may give distributions: look at one
        try:
            _, _, dist = _generic_build(lib, group, name)
        except Exception:
            return []
        if dist is not None:
            k = type(dist)
            return [f"{k.__module__}.{k.__qualname__}.log_prob"]
    return []


# ---------------------------------------------------------------------- solvers
def ode_names() -> list[str]:
    solvers = [m for m in importlib.import_module("torchdiffeq._impl.odeint").SOLVERS if m != "scipy_solver"]
    # the solve itself; the adjoint method's forward (an autograd.Function); a solve to an event
    # (the event-time search, where the solver supports events)
    return [f"ode__{group}__{m}" for group in ("odeint", "adjoint", "event") for m in solvers
            if group != "event" or m not in ODE_NO_EVENTS]


# Solvers `odeint_event` refuses (the fixed-grid and Adams solvers keep no dense output to search)
ODE_NO_EVENTS = ("fixed_adams", "implicit_adams", "explicit_adams")


def ode_case(group: str, name: str) -> Case:
    import torch
    from torchdiffeq import odeint

    torch.manual_seed(0)
    field = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
    options = {"step_size": 0.1} if name in ("euler", "midpoint", "heun2", "heun3", "rk4", "explicit_adams",
                                             "implicit_adams", "fixed_adams") else {}

    if group == "adjoint":
        from torchdiffeq import odeint_adjoint

        class Field(torch.nn.Module):  # the adjoint method needs the field's parameters
            def __init__(self):
                super().__init__()
                self.net = field

            def forward(self, _t, y):
                return self.net(y)

        module = Field()

        def solve(y0, t):
            return odeint_adjoint(module, y0, t, method=name, options=options)
    elif group == "event":
        from torchdiffeq import odeint_event

        def solve(y0, t):
            # the time the state's path crosses 0.2 (an event the solve reaches): found by the
            # solver's event search
            event_t, _ = odeint_event(lambda _t, y: field(y), y0, t[0],
                                      event_fn=lambda s, y: s - 0.2 + 0.0 * y.mean(), method=name, options=options)
            return event_t
    else:
        def solve(y0, t):
            return odeint(lambda _t, y: field(y), y0, t, method=name, options=options)

    return solve, (_img(2, 4), torch.linspace(0, 0.3, 3))


def sde_names() -> list[str]:
    import torchsde

    methods = [v for k, v in vars(torchsde.settings.METHODS).items() if not k.startswith("_")]
    # log_ode needs Brownian motion with Levy area; adjoint_reversible_heun is only for sdeint_adjoint
    return [f"sde__sdeint__{m}" for m in methods if m not in ("log_ode", "adjoint_reversible_heun")]


def sde_case(group: str, name: str) -> Case:
    import torch
    import torchsde

    torch.manual_seed(0)

    class SDE(torch.nn.Module):
        noise_type = "diagonal"
        sde_type = "stratonovich" if name in ("midpoint", "heun", "reversible_heun", "adjoint_reversible_heun",
                                              "log_ode") else "ito"

        def __init__(self):
            super().__init__()
            self.drift = torch.nn.Linear(4, 4)

        def f(self, t, y):
            return torch.tanh(self.drift(y))

        def g(self, t, y):
            return torch.sigmoid(y)

    sde = SDE()

    def solve(y0, ts):
        return torchsde.sdeint(sde, y0, ts, method=name, dt=0.1)

    return solve, (_img(2, 4), torch.linspace(0, 0.3, 3))


def torchode_names() -> list[str]:
    from torchode import interface

    # the one-call interface with each registered method (its default PID controller); the
    # solver module a user compiles, with each step-size controller; the backsolve adjoint
    return ([f"torchode__ivp__{m}" for m in sorted(interface.METHODS)]
            + [f"torchode__controller__{c}" for c in ("integral", "pid", "fixed")]
            + ["torchode__backsolve__tsit5"])


# ptwt: the transforms by convolution (one to three dimensions, separable, stationary, continuous) and
# by sparse matrices, each compiled as a user would call it, on a signal, an image or a volume
PTWT_FUNCTIONS = {"wavedec": 1, "waverec": 1, "wavedec2": 2, "waverec2": 2, "wavedec3": 3, "waverec3": 3,
                  "fswavedec2": 2, "fswaverec2": 2, "swt": 1, "iswt": 1, "cwt": 1}
PTWT_MATRICES = {"MatrixWavedec": 1, "MatrixWaverec": 1, "MatrixWavedec2": 2, "MatrixWaverec2": 2}


def ptwt_names() -> list[str]:
    return [f"ptwt__fn__{n}" for n in PTWT_FUNCTIONS] + [f"ptwt__matrix__{n}" for n in PTWT_MATRICES]


def ptwt_case(group: str, name: str) -> Case:
    import torch

    import ptwt

    torch.manual_seed(0)
    dims = (PTWT_FUNCTIONS if group == "fn" else PTWT_MATRICES)[name]
    data = _img(*{1: (2, 64), 2: (2, 32, 32), 3: (2, 16, 16, 16)}[dims])
    forward = {"waverec": ptwt.wavedec, "waverec2": ptwt.wavedec2, "waverec3": ptwt.wavedec3,
               "fswaverec2": ptwt.fswavedec2, "iswt": ptwt.swt}
    if group == "fn" and name == "cwt":
        scales = torch.arange(1, 9).float()
        return (lambda x: ptwt.cwt(x, scales, "mexh")[0]), (data,)
    if group == "fn" and name in forward:
        coeffs = forward[name](data, "db2", level=2)
        return (lambda c: getattr(ptwt, name)(c, "db2")), (coeffs,)
    if group == "fn":
        return (lambda x: getattr(ptwt, name)(x, "db2", level=2)), (data,)
    if name.startswith("MatrixWaverec"):
        coeffs = getattr(ptwt, name.replace("rec", "dec"))("haar", level=2)(data)
        return getattr(ptwt, name)("haar"), (coeffs,)
    return getattr(ptwt, name)("haar", level=2), (data,)


# the fifth round's own cases: a Mamba language-free stack (its parallel scan, and the sequential
# scan it falls back to), FrEIA's invertible blocks on a flat and an image input, and geoopt's
# manifold maps compiled as functions
MAMBA_SCANS = ("pscan", "sequential")
GEOOPT_MAPS = {"projx": 1, "expmap": 2, "retr": 2, "egrad2rgrad": 2, "inner": 2, "proju": 2}


def mamba_names() -> list[str]:
    return [f"mamba__model__{scan}" for scan in MAMBA_SCANS]


def mamba_case(group: str, name: str) -> Case:
    import torch
    from mambapy.mamba import Mamba, MambaConfig

    torch.manual_seed(0)
    return Mamba(MambaConfig(d_model=8, n_layers=2, pscan=name == "pscan")), (_img(2, 16, 8),)


def _freia_blocks() -> list[str]:
    import FrEIA.modules as fm

    return sorted(n for n in dir(fm) if inspect.isclass(getattr(fm, n)) and issubclass(getattr(fm, n), fm.InvertibleModule)
                  and getattr(fm, n) is not fm.InvertibleModule)


def freia_names() -> list[str]:
    return [f"freia__blocks__{n}" for n in _freia_blocks()]


def freia_case(group: str, name: str) -> Case:
    import copy

    import torch
    import FrEIA.modules as fm

    def subnet(c_in: int, c_out: int):
        return torch.nn.Sequential(torch.nn.Linear(c_in, 16), torch.nn.ReLU(), torch.nn.Linear(16, c_out))

    def conv_subnet(c_in: int, c_out: int):
        return torch.nn.Sequential(torch.nn.Conv2d(c_in, 8, 3, padding=1), torch.nn.ReLU(),
                                   torch.nn.Conv2d(8, c_out, 3, padding=1))

    cls = getattr(fm, name)
    wanted = inspect.signature(cls).parameters
    last: BaseException | None = None
    for dims, net in (((8,), subnet), ((4, 8, 8), conv_subnet)):
        kwargs = {"subnet_constructor": net} if "subnet_constructor" in wanted else {}
        try:
            torch.manual_seed(0)
            block = cls([dims], **kwargs)
            x = _img(2, *dims)
            with torch.no_grad():
                copy.deepcopy(block)([x])
        except Exception as exc:  # not this input
            last = exc
            continue

        def run(x, block=block):
            out, jac = block([x])
            return out[0], jac

        return run, (x,)
    raise RuntimeError(f"freia {name}: no input runs: {last}")


def _geoopt_manifolds() -> list[str]:
    import geoopt.manifolds as gm

    out = []
    for n in dir(gm):
        k = getattr(gm, n)
        if inspect.isclass(k) and issubclass(k, gm.Manifold) and not inspect.isabstract(k) and k is not gm.Manifold:
            try:
                k()
            except Exception:  # takes arguments
                continue
            out.append(n)
    return sorted(out)


def geoopt_names() -> list[str]:
    return [f"geoopt__{m}__{f}" for m in _geoopt_manifolds() for f in GEOOPT_MAPS]


def geoopt_case(group: str, name: str) -> Case:
    import torch
    import geoopt.manifolds as gm

    manifold = getattr(gm, group)()
    last: BaseException | None = None
    for shape in ((4, 8), (8, 4), (4, 4)):
        torch.manual_seed(0)
        try:
            x = manifold.projx(_img(*shape))
            u = manifold.proju(x, _img(*shape))
            args = (x,) if GEOOPT_MAPS[name] == 1 else (x, u)
            getattr(manifold, name)(*args)
        except Exception as exc:  # not this shape
            last = exc
            continue
        return (lambda *a: getattr(manifold, name)(*a)), args
    raise RuntimeError(f"geoopt {group}.{name}: no shape runs: {last}")


# the sixth round: Kolmogorov-Arnold networks, pomegranate's distributions, mixtures and hidden
# Markov models (fitted once eagerly, then scored or fitted again compiled), numerical integration,
# minimizers and k-means, each compiled as the function a user would call
KAN_MODELS = ("KAN", "KANLayer")
POMEGRANATE_DISTRIBUTIONS = ("Exponential", "Gamma", "HalfNormal", "LogNormal", "Normal", "Poisson",
                             "StudentT", "Uniform", "Bernoulli", "Categorical")
POMEGRANATE_MODELS = ("DenseHMM", "SparseHMM", "GeneralMixtureModel", "KMeans")
POMEGRANATE_QUERIES = ("log_probability", "predict", "fit")
QUAD_INTEGRATORS = ("Trapezoid", "Simpson", "Boole", "MonteCarlo", "GaussLegendre", "VEGAS")
MINIMIZE_METHODS = ("bfgs", "l-bfgs", "cg", "newton-cg", "newton-exact", "trust-ncg", "trust-exact", "dogleg")
KMEANS_CALLS = ("fit_predict", "predict")


def kan_names() -> list[str]:
    return [f"kan__model__{n}" for n in KAN_MODELS]


def kan_case(group: str, name: str) -> Case:
    import torch
    import kan

    torch.manual_seed(0)
    if name == "KAN":
        return kan.KAN(width=[4, 5, 1], grid=3, k=3, seed=0, auto_save=False), (_img(8, 4) * 2 - 1,)
    return kan.KANLayer(in_dim=4, out_dim=3, num=5, k=3), (_img(8, 4) * 2 - 1,)


def pomegranate_names() -> list[str]:
    return ([f"pomegranate__dist__{d}_{q}" for d in POMEGRANATE_DISTRIBUTIONS for q in ("log_probability", "fit")]
            + [f"pomegranate__model__{m}_{q}" for m in POMEGRANATE_MODELS for q in POMEGRANATE_QUERIES
               if (m, q) != ("KMeans", "log_probability")])


def _pomegranate_data(name: str):
    import torch

    torch.manual_seed(0)
    if name in ("Bernoulli",):
        return (torch.rand(16, 3) > 0.5).float()
    if name in ("Categorical", "Poisson"):
        return torch.randint(0, 4, (16, 3))
    return torch.rand(16, 3) + 0.1


def pomegranate_case(group: str, name: str) -> Case:
    import importlib

    import torch

    what, query = name.rsplit("_", 1) if not name.endswith("log_probability") else name.split("_", 1)
    if group == "dist":
        cls = getattr(importlib.import_module("pomegranate.distributions"), what)
        X = _pomegranate_data(what)
        model = (cls(dofs=3) if what == "StudentT" else cls()).fit(X)
    else:
        from pomegranate.distributions import Normal

        X = torch.rand(16, 3) + 0.1
        if what in ("DenseHMM", "SparseHMM"):
            X = X.reshape(4, 4, 3)
            if what == "DenseHMM":
                model = importlib.import_module("pomegranate.hmm").DenseHMM([Normal(), Normal()], max_iter=2)
            else:
                d = [Normal(), Normal()]
                model = importlib.import_module("pomegranate.hmm").SparseHMM(
                    d, edges=[(d[0], d[1], 0.3), (d[0], d[0], 0.7), (d[1], d[0], 0.4), (d[1], d[1], 0.6)],
                    starts=[0.5, 0.5], max_iter=2)
        elif what == "GeneralMixtureModel":
            model = importlib.import_module("pomegranate.gmm").GeneralMixtureModel([Normal(), Normal()], max_iter=2)
        else:
            model = importlib.import_module("pomegranate.kmeans").KMeans(k=2, max_iter=2)
        model.fit(X)
    return (lambda X: getattr(model, query)(X)), (X,)


def quad_names() -> list[str]:
    return [f"quad__integrate__{n}" for n in QUAD_INTEGRATORS]


def quad_case(group: str, name: str) -> Case:
    import torch
    import torchquad

    torch.manual_seed(0)
    integrator = getattr(torchquad, name)()
    domain = torch.tensor([[0.0, 1.0], [0.0, 2.0]])

    def integrate(scale):
        return integrator.integrate(lambda x: torch.sin(x * scale).sum(dim=1), dim=2, N=1001,
                                    integration_domain=domain)

    return integrate, (torch.tensor(1.5),)


def minimize_names() -> list[str]:
    return [f"minimize__method__{m.replace('-', '_')}" for m in MINIMIZE_METHODS]


def minimize_case(group: str, name: str) -> Case:
    import torch
    from torchmin import minimize

    def rosen(x):
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()

    method = name.replace("_", "-")
    return (lambda x0: minimize(rosen, x0, method=method, max_iter=5).x), (torch.zeros(4) + 0.5,)


def kmeans_names() -> list[str]:
    return [f"kmeans__model__{c}" for c in KMEANS_CALLS]


def kmeans_case(group: str, name: str) -> Case:
    import torch
    from fast_pytorch_kmeans import KMeans

    torch.manual_seed(0)
    X = torch.rand(32, 4)
    model = KMeans(n_clusters=3, max_iter=5, verbose=0)
    if name == "predict":
        model.fit(X)
    return (lambda X: getattr(model, name)(X)), (X,)



# the thirteenth round: BoTorch (studied by its hash), Bayesian optimization over GPyTorch models:
# every acquisition function it exports, built over a small Gaussian process with the arguments its
# constructor names and called on a batch of candidates as an optimizer of the acquisition calls it;
# every synthetic test function on points inside its bounds; each model's posterior; and the
# multi-objective utilities (Pareto fronts, box partitionings, hypervolumes) that post-process results
BOTORCH_MODELS = ("SingleTaskGP", "MultiTaskGP", "SingleTaskMultiFidelityGP", "MixedSingleTaskGP",
                  "KroneckerMultiTaskGP", "HigherOrderGP", "ModelListGP", "SingleTaskVariationalGP")
BOTORCH_PARETO = ("is_non_dominated", "Hypervolume", "NondominatedPartitioning", "FastNondominatedPartitioning",
                  "DominatedPartitioning", "qExpectedHypervolumeImprovement", "qLogNoisyExpectedHypervolumeImprovement")


def botorch_names() -> list[str]:
    import botorch.acquisition as acquisition
    import botorch.test_functions.synthetic as synthetic

    acqs = [n for n in sorted(dir(acquisition)) if inspect.isclass(k := getattr(acquisition, n))
            and issubclass(k, acquisition.AcquisitionFunction) and not inspect.isabstract(k)]
    tests = [n for n in sorted(dir(synthetic)) if inspect.isclass(k := getattr(synthetic, n))
             and issubclass(k, synthetic.SyntheticTestFunction) and not inspect.isabstract(k)]
    return ([f"botorch__acq__{n}" for n in acqs] + [f"botorch__test__{n}" for n in tests]
            + [f"botorch__model__{n}" for n in BOTORCH_MODELS] + [f"botorch__pareto__{n}" for n in BOTORCH_PARETO])


def _gp(outputs: int = 1):
    import torch
    from botorch.models import SingleTaskGP

    torch.manual_seed(0)
    x = torch.rand(8, 2, dtype=torch.float64)
    y = torch.stack([torch.sin(6 * x[:, 0]) + x[:, 1] * k for k in range(1, outputs + 1)], -1)
    return SingleTaskGP(x, y), x, y


def botorch_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    if group == "test":
        import botorch.test_functions.synthetic as synthetic

        fn = getattr(synthetic, name)(**({"dim": 2} if name == "KeaneBumpFunction" else {}))
        lower, upper = fn.bounds.to(torch.float64)
        return fn, (lower + (upper - lower) * torch.rand(4, fn.dim, dtype=torch.float64),)
    if group == "acq":
        import botorch.acquisition as acquisition

        model, x, y = _gp()
        cls = getattr(acquisition, name)
        offered = {"model": model, "best_f": y.max(), "beta": 0.2, "X_baseline": x, "X_observed": x,
                   "candidate_set": torch.rand(16, 2, dtype=torch.float64), "mc_points": torch.rand(16, 2, dtype=torch.float64),
                   "num_fantasies": 4}
        params = inspect.signature(cls.__init__).parameters
        acq = cls(**{k: v for k, v in offered.items() if k in params})
        q = 1 + offered["num_fantasies"] if "num_fantasies" in params else 1  # the fantasies' points ride along
        return acq, (torch.rand(4, q, 2, dtype=torch.float64),)
    if group == "model":
        import botorch.models as models

        x = torch.rand(8, 3, dtype=torch.float64)
        y = (torch.sin(6 * x[:, :1]) + x[:, 1:2])
        if name == "MultiTaskGP":
            x[:, 2] = torch.tensor([0, 1] * 4, dtype=torch.float64)
            model = models.MultiTaskGP(x, y, task_feature=2)
        elif name == "SingleTaskMultiFidelityGP":
            model = models.SingleTaskMultiFidelityGP(x, y, data_fidelities=[2])
        elif name == "MixedSingleTaskGP":
            x[:, 2] = torch.tensor([0, 1, 2, 0] * 2, dtype=torch.float64)
            model = models.MixedSingleTaskGP(x, y, cat_dims=[2])
        elif name == "KroneckerMultiTaskGP":
            model = models.KroneckerMultiTaskGP(x, torch.cat([y, 2 * y], -1))
        elif name == "HigherOrderGP":
            model = models.HigherOrderGP(x, torch.randn(8, 2, 3, dtype=torch.float64))
        elif name == "ModelListGP":
            model = models.ModelListGP(models.SingleTaskGP(x, y), models.SingleTaskGP(x, 2 * y))
        else:
            model = getattr(models, name)(x, y)
        model.eval()
        return (lambda X: model.posterior(X).mean), (torch.rand(4, 3, dtype=torch.float64),)
    # the multi-objective utilities, on outcomes of two objectives (maximized) with a reference point
    from botorch.acquisition import multi_objective as mo
    from botorch.utils.multi_objective import box_decompositions as boxes
    from botorch.utils.multi_objective import hypervolume, pareto

    y = torch.rand(10, 2, dtype=torch.float64)
    ref = torch.zeros(2, dtype=torch.float64)
    if name == "is_non_dominated":
        return pareto.is_non_dominated, (y,)
    if name == "Hypervolume":
        hv = hypervolume.Hypervolume(ref)
        return hv.compute, (y,)
    if name in ("NondominatedPartitioning", "FastNondominatedPartitioning", "DominatedPartitioning"):
        cls = getattr(boxes, name)
        return (lambda Y: cls(ref_point=ref, Y=Y).compute_hypervolume()), (y,)
    model, x, _ = _gp(outputs=2)
    if name == "qExpectedHypervolumeImprovement":
        partitioning = boxes.NondominatedPartitioning(ref_point=ref, Y=model.train_targets.T.clone())
        acq = mo.qExpectedHypervolumeImprovement(model, ref_point=ref, partitioning=partitioning)
    else:
        acq = mo.qLogNoisyExpectedHypervolumeImprovement(model, ref_point=ref, X_baseline=x)
    return acq, (torch.rand(4, 1, 2, dtype=torch.float64),)

# the fourteenth round: Catalyst (studied by its hash), the losses and heads of metric learning,
# segmentation and recommendation, and the metrics a training loop computes on each batch. Each loss
# is called on the inputs its kind takes (scores and labels, masks, embeddings and classes), each
# margin head with its targets (the training path) and without (inference), each metric function on
# a batch; a triplet loss mines its triplets with each of the library's in-batch samplers. (The
# attention pools are left out: their constructor looks up an activation in a registry that a plain
# import leaves empty.)
CATALYST_LOSSES = {
    "BPRLoss": ({}, "scores"), "BarlowTwinsLoss": ({}, "pair"), "ContrastiveDistanceLoss": ({}, "distances"),
    "ContrastiveEmbeddingLoss": ({}, "embedding_pair"), "ContrastivePairwiseEmbeddingLoss": ({}, "pair"),
    "DiceLoss": ({}, "binary"), "FocalLossBinary": ({}, "binary"), "FocalLossMultiClass": ({}, "classes"),
    "HingeLoss": ({}, "scores"), "HuberLossV0": ({}, "pair"), "IoULoss": ({}, "binary"), "LogisticLoss": ({}, "scores"),
    "LovaszLossBinary": ({}, "binary"), "LovaszLossMultiClass": ({}, "segmentation"),
    "LovaszLossMultiLabel": ({}, "binary"), "MarginLoss": ({}, "embeddings"),
    "MaskCrossEntropyLoss": ({}, "masked"), "MeanOutputLoss": ({}, "pair"), "NaiveCrossEntropyLoss": ({}, "pair"),
    "QuantileRegressionLoss": ({}, "column"), "RSquareLoss": ({}, "pair"), "RocStarLoss": ({}, "column"),
    "SmoothingDiceLoss": ({}, "binary"), "SymmetricCrossEntropyLoss": ({}, "classes"),
    "TripletLoss": ({}, "embeddings"), "TripletLossV2": ({}, "embeddings"),
    "TripletPairwiseEmbeddingLoss": ({}, "pair"), "WARPLoss": ({}, "scores"), "WingLoss": ({}, "pair"),
    "AdaptiveHingeLoss": ({}, "negatives"), "CircleLoss": ({"margin": 0.25, "gamma": 32}, "embeddings"),
    "NTXentLoss": ({"tau": 0.1}, "pair"), "SupervisedContrastiveLoss": ({"tau": 0.1}, "views"),
    "TrevskyLoss": ({"alpha": 0.5}, "binary"), "FocalTrevskyLoss": ({"alpha": 0.5}, "binary"),
    **{f"TripletMarginLossWithSampler_{k}": ({"margin": 0.5}, "embeddings")
       for k in ("AllTripletsSampler", "HardTripletsSampler", "HardClusterSampler")},
}
CATALYST_HEADS = ("ArcFace", "SubCenterArcFace", "AMSoftmax", "AdaCos", "CosFace", "CurricularFace")
CATALYST_LAYERS = {
    "ArcMarginProduct": ({"in_features": 8, "out_features": 4}, (4, 8)), "GeM2d": ({}, (4, 8, 6, 6)),
    "GlobalAvgPool2d": ({}, (4, 8, 6, 6)), "GlobalMaxPool2d": ({}, (4, 8, 6, 6)),
    "GlobalConcatPool2d": ({}, (4, 8, 6, 6)), "cSE": ({"in_channels": 8}, (4, 8, 6, 6)),
    "sSE": ({"in_channels": 8}, (4, 8, 6, 6)), "scSE": ({"in_channels": 8}, (4, 8, 6, 6)),
    "LamaPooling": ({"in_features": 8}, (4, 5, 8)), "TemporalAttentionPooling": ({"in_features": 8}, (4, 5, 8)),
    "TemporalAvgPooling": ({}, (4, 5, 8)), "TemporalMaxPooling": ({}, (4, 5, 8)), "TemporalLastPooling": ({}, (4, 5, 8)),
    "TemporalConcatPooling": ({"in_features": 8}, (4, 5, 8)), "RMSNorm": ({"dimension": 8}, (4, 8)),
    "SoftMax": ({"in_features": 8, "num_classes": 4}, (4, 8)), "GaussianNoise": ({"stddev": 0.1}, (4, 8)),
    "Normalize": ({}, (4, 8)), "Flatten": ({}, (4, 2, 4)),
}
CATALYST_METRICS = {
    "accuracy": "classes", "f1_score": "classes", "fbeta_score": "classes", "precision": "classes", "recall": "classes",
    "precision_recall_fbeta_support": "classes", "get_multiclass_statistics": "classes",
    "multilabel_accuracy": "multilabel", "get_multilabel_statistics": "multilabel",
    "binary_average_precision": "multilabel", "auc": "multilabel", "binary_auc": "binary_scores",
    "sigmoid_focal_loss": "multilabel", "reduced_focal_loss": "multilabel",
    "average_precision": "ranking", "mean_average_precision": "ranking", "mrr": "ranking",
    "reciprocal_rank": "ranking", "hitrate": "ranking", "ndcg": "ranking", "dcg": "ranking",
    "dice": "segmentation", "iou": "segmentation", "trevsky": "segmentation", "get_segmentation_statistics": "segmentation",
    "cmc_score": "retrieval", "cmc_score_count": "retrieval", "masked_cmc_score": "retrieval", "r2_squared": "regression",
}


def catalyst_names() -> list[str]:
    return ([f"catalyst__loss__{n}" for n in CATALYST_LOSSES] + [f"catalyst__head__{n}" for n in CATALYST_HEADS]
            + [f"catalyst__headinfer__{n}" for n in CATALYST_HEADS] + [f"catalyst__layer__{n}" for n in CATALYST_LAYERS]
            + [f"catalyst__metric__{n}" for n in CATALYST_METRICS])


def _catalyst_inputs(kind: str) -> tuple:
    import torch

    torch.manual_seed(0)
    if kind == "scores":
        return torch.randn(4, 8), torch.randint(0, 2, (4, 8)).float()
    if kind == "distances":
        return torch.rand(4, 8), torch.randint(0, 2, (4, 8)).float()
    if kind == "pair":
        return torch.randn(4, 8), torch.randn(4, 8)
    if kind == "embedding_pair":
        return torch.randn(4, 8), torch.randn(4, 8), torch.tensor([0.0, 1.0, 0.0, 1.0])
    if kind == "binary":
        return torch.randn(4, 1, 8, 8), torch.randint(0, 2, (4, 1, 8, 8)).float()
    if kind == "segmentation":
        return torch.randn(2, 3, 8, 8), torch.randint(0, 3, (2, 8, 8))
    if kind == "classes":
        return torch.randn(16, 4), torch.randint(0, 4, (16,))
    if kind == "embeddings":
        return torch.nn.functional.normalize(torch.randn(8, 8), dim=-1), torch.tensor([0, 1, 2, 3, 0, 1, 2, 3])
    if kind == "masked":
        return torch.randn(4, 8), torch.randint(0, 8, (4,)), torch.tensor([1.0, 0.0, 1.0, 1.0])
    if kind == "column":
        return torch.randn(8, 1), torch.randint(0, 2, (8, 1)).float()
    if kind == "negatives":
        return torch.randn(4), torch.randn(3, 4)
    if kind == "views":
        return torch.randn(8, 8), torch.tensor([0, 1, 2, 3, 0, 1, 2, 3])
    if kind == "multilabel":
        return torch.rand(16, 4), torch.randint(0, 2, (16, 4)).float()
    if kind == "binary_scores":
        return torch.rand(16), torch.randint(0, 2, (16,)).float()
    if kind == "ranking":
        return torch.rand(4, 8), torch.randint(0, 2, (4, 8)).float()
    if kind == "retrieval":
        return torch.randn(4, 8), torch.randn(6, 8), torch.randint(0, 2, (4, 6)).bool()
    return torch.rand(16), torch.rand(16)  # regression


def catalyst_case(group: str, name: str) -> Case:
    import torch

    if group == "loss":
        import catalyst.contrib.losses as losses

        kwargs, kind = CATALYST_LOSSES[name]
        if name.startswith("TripletMarginLossWithSampler_"):
            import catalyst.contrib.data.sampler_inbatch as samplers

            sampler = getattr(samplers, name.split("_", 1)[1])()
            return losses.TripletMarginLossWithSampler(sampler_inbatch=sampler, **kwargs), _catalyst_inputs(kind)
        return getattr(losses, name)(**kwargs), _catalyst_inputs(kind)
    if group in ("head", "headinfer"):
        import catalyst.contrib.layers as layers

        torch.manual_seed(0)
        head = getattr(layers, name)(in_features=8, out_features=4)
        x, target = torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 0, 1])
        return head, ((x, target) if group == "head" else (x,))
    if group == "layer":
        import catalyst.contrib.layers as layers

        kwargs, shape = CATALYST_LAYERS[name]
        torch.manual_seed(0)
        return getattr(layers, name)(**kwargs), (torch.randn(*shape),)
    import catalyst.metrics.functional as metrics

    fn = getattr(metrics, name)
    kind = CATALYST_METRICS[name]
    args = _catalyst_inputs(kind)
    extra = {"average_precision": {"k": 3}, "reciprocal_rank": {"k": 3}, "mean_average_precision": {"topk": [1, 3]},
             "mrr": {"topk": [1, 3]}, "hitrate": {"topk": [1, 3]}, "ndcg": {"topk": [1, 3]}, "trevsky": {"alpha": 0.5},
             "multilabel_accuracy": {"threshold": 0.5}}.get(name, {})
    if kind == "segmentation":  # probabilities and a one-hot target, per class
        probs = torch.softmax(args[0], 1)
        args = (probs, torch.nn.functional.one_hot(args[1], 3).permute(0, 3, 1, 2).float())
    if name == "cmc_score_count":
        args = (torch.cdist(args[0], args[1]), args[2])
    elif name == "masked_cmc_score":
        args = (*args, torch.ones(4, 6, dtype=torch.bool))
    return (lambda *a: fn(*a, **extra)), args


# the fifteenth round: four language-model libraries of one author (each studied by its own hash),
# run as a training loop and a sampler run them: a loss computed in forward (`return_loss=True`), the
# sampling loop of `generate` (top-k filtering, Gumbel or multinomial draws, stopping at an end
# token), reward and value heads, a masked-language-model wrapper, and a contrastive captioner.
LM_CASES = {
    "palm": ("PaLM", "PaLM_loss", "PaLM_encoder", "PaLM_generate", "PaLM_generate_eos", "RewardModel",
             "RewardModel_labels", "ActorCritic", "ActorCritic_generate", "ImplicitPRM", "score_centering_loss"),
    "coca": ("CoCa", "CoCa_loss", "CoCa_embeddings"),
    "mlm": ("MLM",),
    "megabyte": ("MEGABYTE", "MEGABYTE_loss", "MEGABYTE_generate"),
}
LM_ENTRIES = {  # what each case compiles beyond a module's forward
    "PaLM_generate": ["palm_rlhf_pytorch.palm.PaLM.generate"],
    "PaLM_generate_eos": ["palm_rlhf_pytorch.palm.PaLM.generate"],
    "ActorCritic_generate": ["palm_rlhf_pytorch.ppo.ActorCritic.generate"],
    "score_centering_loss": ["palm_rlhf_pytorch.grpo.score_centering_loss"],
    "MEGABYTE_generate": ["MEGABYTE_pytorch.megabyte.MEGABYTE.generate"],
}


def _lm_names(lib: str) -> Callable[[], list[str]]:
    return lambda: [f"{lib}__lm__{n}" for n in LM_CASES[lib]]


def _palm(**kwargs):
    import torch
    from palm_rlhf_pytorch import PaLM

    torch.manual_seed(0)
    return PaLM(num_tokens=32, dim=32, depth=2, dim_head=8, heads=2, **kwargs)


def lm_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    tokens = torch.randint(1, 32, (2, 12))
    if name == "PaLM":
        return _palm().eval(), (tokens,)
    if name == "PaLM_loss":
        model = _palm()
        return (lambda x: model(x, return_loss=True)), (tokens,)
    if name == "PaLM_encoder":
        masked = tokens.clone()
        masked[:, -3:] = -1  # negative ids are padding to a non-causal model
        return _palm(causal=False).eval(), (masked,)
    if name in ("PaLM_generate", "PaLM_generate_eos"):
        model = _palm()
        eos = {"eos_token": 3} if name.endswith("eos") else {}
        return (lambda prompt: model.generate(16, prompt, **eos)), (tokens[:1, :4],)
    if name.startswith("RewardModel"):
        from palm_rlhf_pytorch import RewardModel

        reward = RewardModel(_palm(), num_binned_output=5 if name.endswith("labels") else 0.)
        if name.endswith("labels"):
            return (lambda x, y: reward(x, labels=y)), (tokens, torch.randint(0, 5, (2,)))
        return reward.eval(), (tokens, torch.ones(2, 12, dtype=torch.bool), None, torch.tensor([3, 5]))
    if name.startswith("ActorCritic"):
        from palm_rlhf_pytorch import ActorCritic

        actor = ActorCritic(_palm(), pooled_values=True)
        if name.endswith("generate"):
            return (lambda prompt: actor.generate(prompt, 16, eos_token=3, return_values=True)), (tokens[:1, :4],)
        return actor, (tokens, torch.ones(2, 12, dtype=torch.bool))
    if name == "ImplicitPRM":
        from palm_rlhf_pytorch import ImplicitPRM

        return ImplicitPRM(_palm()), (tokens, torch.randint(0, 2, (2,)))
    if name == "score_centering_loss":
        from palm_rlhf_pytorch import score_centering_loss

        logits = torch.randn(2, 12, 32)
        return score_centering_loss, (logits.log_softmax(-1), logits.softmax(-1), tokens, torch.randn(2))
    if name.startswith("CoCa"):
        from coca_pytorch import CoCa

        coca = CoCa(dim=32, num_tokens=32, unimodal_depth=1, multimodal_depth=1, image_dim=16, num_img_queries=4,
                    dim_head=8, heads=2)
        image_tokens = torch.randn(2, 6, 16)
        if name == "CoCa_loss":
            return (lambda text, img: coca(text, image_tokens=img, return_loss=True)), (tokens, image_tokens)
        if name == "CoCa_embeddings":
            return (lambda text, img: coca(text, image_tokens=img, return_embeddings=True)), (tokens, image_tokens)
        return (lambda text, img: coca(text, image_tokens=img)), (tokens, image_tokens)
    if name == "MLM":
        from mlm_pytorch import MLM
        from x_transformers import Encoder, TransformerWrapper

        transformer = TransformerWrapper(num_tokens=32, max_seq_len=16,
                                         attn_layers=Encoder(dim=32, depth=1, heads=2, attn_dim_head=8))
        return MLM(transformer, num_tokens=32, mask_token_id=2, pad_token_id=0, mask_ignore_token_ids=[1]), (tokens,)
    from MEGABYTE_pytorch import MEGABYTE

    model = MEGABYTE(num_tokens=32, dim=(32, 16), depth=(1, 1), max_seq_len=(4, 4), dim_head=8, heads=2)
    ids = torch.randint(1, 32, (2, 16))
    if name == "MEGABYTE_loss":
        return (lambda x: model(x, return_loss=True)), (ids,)
    if name == "MEGABYTE_generate":
        return (lambda prime: model.generate(prime)), (ids[:1, :3],)
    return model.eval(), (ids,)


# the seventh round: optimizers, whose `step` a user compiles on its own (`torch.compile(opt.step)`),
# each after one backward pass so that every parameter has a gradient. Each runs twice: its first
# step (`step`, which makes the optimizer's state) and a later one (`warm`: one step run eagerly
# first, so that the compiled step reads the state a step left, as every step but the first does)
OPTIMIZERS_LEFT_OUT = ("Optimizer", "Lookahead", "Adahessian")  # a base class, a wrapper, one that needs create_graph


def optim_names() -> list[str]:
    import torch
    import torch_optimizer

    return [f"optim__{group}__{n}" for group in STEP_GROUPS for n in sorted(dir(torch_optimizer))
            if inspect.isclass(k := getattr(torch_optimizer, n)) and issubclass(k, torch.optim.Optimizer)
            and n not in OPTIMIZERS_LEFT_OUT]


STEP_GROUPS = ("step", "warm")


def optim_case(group: str, name: str) -> Case:
    return _step_case("torch_optimizer", name, warm=group == "warm")


def _step_case(package: str, name: str, warm: bool = False) -> Case:
    """The optimizer `name` of `package` over a small layer with its gradients set, its `step` compiled;
    `warm`: after one step run eagerly (the compiled step is the second)."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = getattr(importlib.import_module(package), name)(model.parameters(), lr=1e-3)
    x = _img(8, 4)
    model(x).pow(2).sum().backward()
    if warm:
        opt.step()

    def step(x):
        opt.step()
        return x

    return step, (x,)


# the twelfth round: pytorch_optimizer's optimizers, written by many hands, their step compiled as
# the seventh round's are (those it takes from torch itself are torch's, not the library's, and are
# left out; so are those that wrap another optimizer or need a closure or second derivatives, which
# fail to build or to step and are then reported as such)
def popt_names() -> list[str]:
    import pytorch_optimizer
    import torch

    return [f"popt__{group}__{n}" for group in STEP_GROUPS for n in sorted(dir(pytorch_optimizer))
            if inspect.isclass(k := getattr(pytorch_optimizer, n)) and issubclass(k, torch.optim.Optimizer)
            and k.__module__.startswith("pytorch_optimizer.")]


def popt_case(group: str, name: str) -> Case:
    return _step_case("pytorch_optimizer", name, warm=group == "warm")


# the eighth round: linear_operator's structured matrices (the algebra under Gaussian processes),
# each built inside the compiled function from its tensors and asked one query; "iterative" asks
# the log-determinant with Cholesky turned off, as a large kernel matrix would be
LINOP_QUERIES = {"solve": "solve", "invquadlogdet": "inv_quad_logdet", "diagonal": "diagonal", "matmul": "matmul",
                 "root": "root_decomposition", "cholesky": "cholesky", "eigh": "eigh", "dense": "to_dense",
                 "iterative": "inv_quad_logdet"}


def _linop_builders() -> dict[str, tuple[Any, list]]:
    import torch
    from linear_operator import operators as o

    torch.manual_seed(0)

    def spd(n):
        a = torch.randn(n, n)
        return a @ a.T + n * torch.eye(n)

    def dense(a):
        return o.DenseLinearOperator(a)

    def kron(a, b):
        return o.KroneckerProductLinearOperator(dense(a), dense(b))

    return {
        "Dense": (dense, [spd(6)]),
        "Diag": (o.DiagLinearOperator, [torch.rand(6) + 1]),
        "AddedDiag": (lambda a, d: o.AddedDiagLinearOperator(dense(a), o.DiagLinearOperator(d)), [spd(6), torch.rand(6) + 1]),
        "LowRankRootAddedDiag": (lambda r, d: o.LowRankRootAddedDiagLinearOperator(
            o.LowRankRootLinearOperator(r), o.DiagLinearOperator(d)), [torch.randn(6, 2), torch.rand(6) + 1]),
        "Kronecker": (kron, [spd(2), spd(3)]),
        "KroneckerAddedDiag": (lambda a, b, d: o.KroneckerProductAddedDiagLinearOperator(
            kron(a, b), o.DiagLinearOperator(d)), [spd(2), spd(3), torch.rand(6) + 1]),
        "Toeplitz": (o.ToeplitzLinearOperator, [torch.tensor([4.0, 1.0, 0.5, 0.2, 0.1, 0.05])]),
        "Chol": (lambda chol: o.CholLinearOperator(o.TriangularLinearOperator(chol)), [torch.linalg.cholesky(spd(6))]),
        "Sum": (lambda a, b: o.SumLinearOperator(dense(a), dense(b)), [spd(6), spd(6)]),
        "Root": (o.RootLinearOperator, [torch.randn(6, 6) + 3 * torch.eye(6)]),
        "BlockDiag": (lambda a: o.BlockDiagLinearOperator(dense(a)), [torch.stack([spd(3), spd(3)])]),
        "ConstantMul": (lambda a, c: o.ConstantMulLinearOperator(dense(a), c), [spd(6), torch.tensor(2.0)]),
        "PsdSum": (lambda a, b: o.PsdSumLinearOperator(dense(a), dense(b)), [spd(6), spd(6)]),
        "Mul": (lambda a, b: o.MulLinearOperator(o.RootLinearOperator(a), o.RootLinearOperator(b)),
                [torch.randn(6, 6), torch.randn(6, 6)]),
        "Interpolated": (lambda a, i, v: o.InterpolatedLinearOperator(dense(a), i, v, i, v),
                         [spd(4), torch.randint(0, 4, (6, 2)), torch.rand(6, 2)]),
        "Masked": (lambda a, m: o.MaskedLinearOperator(dense(a), m, m),
                   [spd(6), torch.tensor([True, False, True, True, False, True])]),
        "SumKronecker": (lambda a, b, c, d: o.SumKroneckerLinearOperator(kron(a, b), kron(c, d)),
                         [spd(2), spd(3), spd(2), spd(3)]),
    }


LINOP_OPERATORS = ("Dense", "Diag", "AddedDiag", "LowRankRootAddedDiag", "Kronecker", "KroneckerAddedDiag", "Toeplitz",
                   "Chol", "Sum", "Root", "BlockDiag", "ConstantMul", "PsdSum", "Mul", "Interpolated", "Masked",
                   "SumKronecker")


def linop_names() -> list[str]:
    return [f"linop__{q}__{op}" for op in LINOP_OPERATORS for q in LINOP_QUERIES]


def linop_case(group: str, name: str) -> Case:
    import torch
    import linear_operator

    build, tensors = _linop_builders()[name]
    rhs = _img(6, 2)

    def query(*args):
        op = build(*args[:-1])
        if group == "iterative":
            with linear_operator.settings.max_cholesky_size(0):
                return op.inv_quad_logdet(args[-1], logdet=True)[1]
        if group in ("solve", "matmul"):
            return getattr(op, group)(args[-1])
        if group == "invquadlogdet":
            return op.inv_quad_logdet(args[-1], logdet=True)[1]
        if group == "root":
            return op.root_decomposition().root.to_dense()
        if group == "cholesky":
            return op.cholesky().to_dense()
        if group == "eigh":
            return op.eigh()[0]
        return torch.as_tensor(getattr(op, LINOP_QUERIES[group])())

    return query, (*tensors, rhs)


def torchode_case(group: str, name: str) -> Case:
    import torch
    import torchode as to

    torch.manual_seed(0)
    field = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
    y0, t_eval = _img(2, 4), torch.linspace(0, 0.3, 3).repeat(2, 1)
    if group == "ivp":
        def solve(y0, t_eval):
            return to.solve_ivp(lambda _t, y: field(y), y0, t_eval, method=name).ys

        return solve, (y0, t_eval)
    if group == "backsolve":  # the adjoint differentiates the field's parameters: a module, then
        class Field(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = field

            def forward(self, _t, y):
                return self.net(y)

        term = to.ODETerm(Field())
    else:
        term = to.ODETerm(lambda _t, y: field(y))
    if group == "backsolve":
        controller = to.IntegralController(atol=1e-6, rtol=1e-3, term=term)
        solver = to.BacksolveAdjoint(term, to.Tsit5(term=term), controller)
    else:
        controller = {"integral": lambda: to.IntegralController(atol=1e-6, rtol=1e-3, term=term),
                      "pid": lambda: to.PIDController(atol=1e-6, rtol=1e-3, pcoeff=0.2, icoeff=0.5, dcoeff=0.0,
                                                      term=term),
                      "fixed": lambda: to.FixedStepController()}[name]()
        solver = to.AutoDiffAdjoint(to.Dopri5(term=term) if name != "fixed" else to.Heun(term=term), controller)

    def solve(y0, t_eval):
        dt0 = torch.full((2,), 0.05) if name == "fixed" else None
        return solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval), dt0=dt0).ys

    return solve, (y0, t_eval)


SURV_LOSSES = {"cox_efron": ("cox", "neg_partial_log_likelihood", {"ties_method": "efron"}),
               "cox_breslow": ("cox", "neg_partial_log_likelihood", {"ties_method": "breslow"}),
               "cox_baseline": ("cox", "baseline_survival_function", {}),
               "weibull": ("weibull", "neg_log_likelihood_weibull", {}),
               "weibull_hazard": ("weibull", "log_hazard", {}),
               "survival": ("survival", "neg_log_likelihood", {})}
SURV_METRICS = {"cindex": ("cindex", "ConcordanceIndex"), "auc": ("auc", "Auc"),
                "brier": ("brier_score", "BrierScore")}


def surv_names() -> list[str]:
    # torchsurv's losses (a training step's loss, with ties in the event times) and its metrics,
    # each called as a user calls it on a batch of predictions; the Kaplan-Meier estimator
    return ([f"surv__loss__{k}" for k in SURV_LOSSES] + [f"surv__metric__{k}" for k in SURV_METRICS]
            + ["surv__stats__kaplan_meier"])


def surv_case(group: str, name: str) -> Case:
    import torch

    torch.manual_seed(0)
    n = 8
    event = torch.tensor([1, 0, 1, 1, 0, 1, 1, 0], dtype=torch.bool)
    time = torch.tensor([2.0, 3.0, 3.0, 5.0, 6.0, 6.0, 8.0, 9.0])  # ties, as real follow-up times have
    if group == "loss":
        module, fn, kwargs = SURV_LOSSES[name]
        loss = getattr(importlib.import_module(f"torchsurv.loss.{module}"), fn)
        if name == "weibull":
            return loss, (torch.randn(n, 2), event, time)
        if name == "weibull_hazard":
            return loss, (torch.randn(n, 2), time)
        if name == "survival":
            eval_time = torch.tensor([1.0, 2.0, 4.0, 6.0, 8.0])
            return loss, (torch.randn(n, 5), event, time, eval_time)
        return (lambda log_hz, event, time: loss(log_hz, event, time, **kwargs)), (torch.randn(n, 1), event, time)
    if group == "metric":
        module, cls = SURV_METRICS[name]
        metric = getattr(importlib.import_module(f"torchsurv.metrics.{module}"), cls)()
        if name == "brier":  # survival probabilities at the given times
            new_time = torch.tensor([3.0, 5.0, 6.0, 8.0])
            return metric, (torch.rand(n, 4), event, time, new_time)
        return metric, (torch.randn(n), event, time)
    from torchsurv.stats.kaplan_meier import KaplanMeierEstimator

    return KaplanMeierEstimator(), (event, time)


GEOMLOSS = ("sinkhorn", "energy", "gaussian", "laplacian")  # "hausdorff" fails eagerly with these settings


def geomloss_names() -> list[str]:
    # the samples loss with each of its losses on point clouds (tensorized: no KeOps), with uniform
    # weights and with weights given
    return [f"geomloss__samples__{loss}_{w}" for loss in GEOMLOSS for w in ("uniform", "weighted")]


def geomloss_case(group: str, name: str) -> Case:
    import torch
    from geomloss import SamplesLoss

    loss, weights = name.rsplit("_", 1)
    module = SamplesLoss(loss=loss, p=2, blur=0.1, backend="tensorized")
    torch.manual_seed(0)
    x, y = torch.randn(2, 12, 3), torch.randn(2, 10, 3) + 0.5
    if weights == "uniform":
        return module, (x, y)
    a, b = torch.rand(2, 12).softmax(-1), torch.rand(2, 10).softmax(-1)
    return module, (a, x, b, y)


ENTMAX_ACTIVATIONS = ("Sparsemax", "Entmax15", "SparsemaxBisect", "EntmaxBisect", "NormmaxBisect", "BudgetBisect")
ENTMAX_LOSSES = ("SparsemaxLoss", "Entmax15Loss", "SparsemaxBisectLoss", "EntmaxBisectLoss", "NormmaxBisectLoss")
ENTMAX_TOP_K = ("Sparsemax", "Entmax15", "SparsemaxLoss", "Entmax15Loss")  # those that take `k`


def entmax_names() -> list[str]:
    # each activation on scores, each loss on scores and class targets (a training step's loss),
    # with their defaults; those that take `k` (a partial sort) also with a `k` below the size
    return ([f"entmax__act__{name}" for name in ENTMAX_ACTIVATIONS]
            + [f"entmax__loss__{name}" for name in ENTMAX_LOSSES]
            + [f"entmax__topk__{name}" for name in ENTMAX_TOP_K])


def entmax_case(group: str, name: str) -> Case:
    import torch
    import entmax

    torch.manual_seed(0)
    scores = torch.randn(4, 10)
    module = getattr(entmax, name)(k=3) if group == "topk" else getattr(entmax, name)()
    if name.endswith("Loss"):
        return module, (scores, torch.randint(0, 10, (4,)))
    return module, (scores,)


CRF_REDUCTIONS = ("sum", "mean", "token_mean", "none")


def crf_names() -> list[str]:
    # pytorch-crf: the log-likelihood (a training step's loss) under each reduction, and Viterbi
    # decoding, each with and without a padding mask
    return ([f"crf__loss__{r}_{m}" for r in CRF_REDUCTIONS for m in ("full", "masked")]
            + [f"crf__decode__{m}" for m in ("full", "masked")])


def crf_case(group: str, name: str) -> Case:
    import torch
    from torchcrf import CRF

    torch.manual_seed(0)
    crf = CRF(5, batch_first=True)
    emissions, tags = torch.randn(2, 6, 5), torch.randint(0, 5, (2, 6))
    mask = torch.ones(2, 6, dtype=torch.bool)
    if name.endswith("masked"):
        mask[1, 4:] = False
    if group == "decode":
        return crf.decode, (emissions, mask)
    return crf, (emissions, tags, mask), {"reduction": name.rsplit("_", 1)[0]}


def ncps_names() -> list[str]:
    # ncps: the closed-form (CfC) network in each mode, with a fully connected and an NCP wiring,
    # and the liquid time-constant (LTC) network with each wiring; each with and without the
    # elapsed times between steps
    return ([f"ncps__cfc__{mode}_{t}" for mode in ("default", "pure", "no_gate") for t in ("plain", "timed")]
            + [f"ncps__wired__{w}_{t}" for w in ("cfc_full", "cfc_ncp", "ltc_full", "ltc_ncp", "ltc_units")
               for t in ("plain", "timed")])


def ncps_case(group: str, name: str) -> Case:
    import torch
    from ncps import wirings
    from ncps.torch import CfC, LTC

    torch.manual_seed(0)
    kind, timed = name.rsplit("_", 1)
    x = torch.randn(2, 5, 4)
    if group == "cfc":
        model = CfC(4, 8, mode=kind)
    else:
        net, wiring = kind.split("_")
        units = {"full": wirings.FullyConnected(8, 2), "ncp": wirings.AutoNCP(8, 2), "units": 8}[wiring]
        model = (CfC if net == "cfc" else LTC)(4, units)
    if timed == "timed":
        return model, (x,), {"timespans": torch.rand(2, 5) + 0.5}
    return model, (x,)


STRUCT_PROPERTIES = ("partition", "marginals", "argmax", "entropy")


def struct_names() -> list[str]:
    # torch-struct: each structured distribution over random log-potentials, with each of the
    # quantities a user asks of it (the log-partition, marginals, the best structure, the entropy)
    dists = ("LinearChainCRF", "SemiMarkovCRF", "DependencyCRF", "NonProjectiveDependencyCRF", "TreeCRF",
             "AlignmentCRF")
    return [f"struct__dist__{d}_{q}" for d in dists for q in STRUCT_PROPERTIES]


def struct_case(group: str, name: str) -> Case:
    import torch
    import torch_struct

    torch.manual_seed(0)
    dist, prop = name.rsplit("_", 1)
    shape = {"LinearChainCRF": (2, 5, 3, 3), "SemiMarkovCRF": (2, 5, 3, 3, 3), "DependencyCRF": (2, 5, 5),
             "NonProjectiveDependencyCRF": (2, 5, 5), "TreeCRF": (2, 5, 5, 3), "AlignmentCRF": (2, 5, 4, 3)}[dist]
    cls = getattr(torch_struct, dist)

    def run(potentials):
        return getattr(cls(potentials), prop)

    return run, (torch.randn(*shape),)


FM_FIXED = ("euler", "midpoint", "rk4", "heun2", "heun3")  # and the Adams methods: fixed grids


def fm_names() -> list[str]:
    # flow_matching: sampling with its ODE solver and each of torchdiffeq's methods; the likelihood
    # (exact and estimated divergence) with a fixed-grid and an adaptive method; a training
    # step's path sample under each scheduler; the discrete path, its solver and its loss; the
    # Riemannian solver on each manifold with each of its methods; the geodesic path
    solvers = [m for m in importlib.import_module("torchdiffeq._impl.odeint").SOLVERS if m != "scipy_solver"]
    schedulers = ("CondOTScheduler", "CosineScheduler", "LinearVPScheduler", "VPScheduler",
                  "PolynomialConvexScheduler")
    return ([f"fm__ode__{m}" for m in solvers]
            + [f"fm__likelihood__{m}_{d}" for m in ("euler", "dopri5") for d in ("exact", "estimate")]
            + [f"fm__path__{s}" for s in schedulers]
            + ["fm__discrete__path", "fm__discrete__solver", "fm__discrete__loss"]
            + [f"fm__riemann__{g}_{m}" for g in ("Sphere", "FlatTorus") for m in ("euler", "midpoint", "rk4")]
            + [f"fm__geodesic__{g}" for g in ("Sphere", "FlatTorus")])


def fm_case(group: str, name: str) -> Case:
    import torch
    from flow_matching.path import AffineProbPath, GeodesicProbPath, MixtureDiscreteProbPath
    from flow_matching.path import scheduler as schedulers
    from flow_matching.utils import ModelWrapper
    from flow_matching.utils import manifolds

    torch.manual_seed(0)

    class Velocity(ModelWrapper):  # a small field of (x, t), as the library's examples wrap one
        def forward(self, x, t, **extras):
            return self.model(torch.cat([x, t.expand(x.shape[0], 1)], dim=1))

    def field(width: int) -> ModelWrapper:
        return Velocity(torch.nn.Sequential(torch.nn.Linear(width + 1, 16), torch.nn.Tanh(),
                                            torch.nn.Linear(16, width)))

    x0, x1, t = torch.randn(6, 3), torch.randn(6, 3), torch.rand(6)
    if group == "ode":
        from flow_matching.solver import ODESolver

        step = 0.25 if name in FM_FIXED or name.endswith("adams") else None
        return ODESolver(field(3)).sample, (x0,), {"step_size": step, "method": name}
    if group == "likelihood":
        from flow_matching.solver import ODESolver

        method, divergence = name.rsplit("_", 1)

        def log_p0(x):
            return -0.5 * (x ** 2).sum(dim=1)

        return (ODESolver(field(3)).compute_likelihood, (x1, log_p0),
                {"step_size": 0.25 if method == "euler" else None, "method": method,
                 "exact_divergence": divergence == "exact"})
    if group == "path":
        sched = getattr(schedulers, name)(2.0) if name == "PolynomialConvexScheduler" else getattr(schedulers, name)()
        return AffineProbPath(sched).sample, (x0, x1, t)
    if group == "discrete":
        path = MixtureDiscreteProbPath(schedulers.PolynomialConvexScheduler(2.0))
        tokens0, tokens1 = torch.randint(0, 8, (6, 5)), torch.randint(0, 8, (6, 5))
        if name == "path":
            return path.sample, (tokens0, tokens1, t)
        if name == "loss":
            from flow_matching.loss import MixturePathGeneralizedKL

            return MixturePathGeneralizedKL(path), (torch.randn(6, 5, 8), tokens1, tokens0, t)

        class Posterior(ModelWrapper):  # the logits of the target token at each place
            def forward(self, x, t, **extras):
                return torch.softmax(self.model(torch.nn.functional.one_hot(x, 8).float()), dim=-1)

        from flow_matching.solver import MixtureDiscreteEulerSolver

        solver = MixtureDiscreteEulerSolver(Posterior(torch.nn.Linear(8, 8)), path, vocabulary_size=8)
        return solver.sample, (tokens0,), {"step_size": 0.25}
    geometry, method = (name.split("_", 1) + [""])[:2]
    manifold = getattr(manifolds, geometry)()
    on = manifold.projx(torch.randn(6, 3))
    if group == "geodesic":
        return GeodesicProbPath(schedulers.CondOTScheduler(), manifold).sample, (on, manifold.projx(x1), t)
    from flow_matching.solver import RiemannianODESolver

    return RiemannianODESolver(manifold, field(3)).sample, (on,), {"step_size": 0.25, "method": method}


CDE_PATHS = {"linear": ("linear_interpolation_coeffs", "LinearInterpolation"),
             "cubic": ("natural_cubic_coeffs", "CubicSpline"),
             "hermite": ("hermite_cubic_coefficients_with_backward_differences", "CubicSpline")}


def cde_names() -> list[str]:
    # a neural CDE's forward (the path built from coefficients, then solved along), each path with
    # a fixed-step and an adaptive solver; and the coefficients' own computation
    return ([f"cde__cdeint__{path}_{m}" for path in CDE_PATHS for m in ("rk4", "dopri5")]
            + [f"cde__coeffs__{path}" for path in CDE_PATHS])


def cde_case(group: str, name: str) -> Case:
    import torch
    import torchcde

    torch.manual_seed(0)
    x = torch.cumsum(_img(2, 6, 3), dim=1)
    x[..., 0] = torch.linspace(0, 1, 6)  # time as the first channel, as torchcde's examples do
    if group == "coeffs":
        return getattr(torchcde, CDE_PATHS[name][0]), (x,)
    path, method = name.rsplit("_", 1)
    coeffs = getattr(torchcde, CDE_PATHS[path][0])(x)
    interpolation = getattr(torchcde, CDE_PATHS[path][1])

    class Field(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(8, 8 * 3)

        def forward(self, _t, z):
            return torch.tanh(self.linear(z)).view(z.shape[0], 8, 3)

    class NeuralCDE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.initial, self.func = torch.nn.Linear(3, 8), Field()

        def forward(self, coeffs):
            control = interpolation(coeffs)
            z0 = self.initial(control.evaluate(control.interval[0]))
            options = {"step_size": 0.2} if method == "rk4" else {}
            return torchcde.cdeint(X=control, func=self.func, z0=z0, t=control.interval, method=method,
                                   options=options)[:, -1]

    return NeuralCDE(), (coeffs,)


# the ninth round, beside the mixtures of experts above: an interatomic potential under each of its
# neighbour lists (pairs within a cutoff: sizes that depend on the coordinates), audio filterbanks
# (each as an encoder and a decoder), and non-uniform FFTs (with and without precomputed sparse
# interpolation matrices)
TORCHANI_NEIGHBORLISTS = ("all_pairs", "cell_list", "adaptive", "verlet_cell_list")


def torchani_names() -> list[str]:
    return [f"torchani__model__{nl}" for nl in TORCHANI_NEIGHBORLISTS]


def torchani_case(group: str, name: str) -> Case:
    import torch
    import torchani

    torch.manual_seed(0)
    model = torchani.models.simple_ani(["H", "C", "N", "O"], "wb97x-631gd", neighborlist=name, strategy="pyaev")
    species = torch.tensor([[6, 1, 1, 1, 1, 8]])
    return model, ((species, torch.randn(1, 6, 3)),)


AFB_FILTERBANKS = ("FreeFB", "AnalyticFreeFB", "ParamSincFB", "STFTFB", "TorchSTFTFB")


def afb_names() -> list[str]:
    return [f"afb__{part}__{fb}" for part in ("enc", "dec") for fb in AFB_FILTERBANKS]


def afb_case(group: str, name: str) -> Case:
    import torch
    import asteroid_filterbanks as afb

    def filterbank():
        return getattr(afb, name)(n_filters=16, kernel_size=17 if name == "ParamSincFB" else 16, stride=8)

    torch.manual_seed(0)
    wave = torch.randn(2, 1, 256)
    if group == "enc":
        return afb.Encoder(filterbank()), (wave,)
    with torch.no_grad():
        spec = afb.Encoder(filterbank())(wave)
    return afb.Decoder(filterbank()), (spec,)


KBNUFFT_MODULES = ("KbNufft", "KbNufftAdjoint", "KbInterp", "KbInterpAdjoint", "ToepNufft")


def kbnufft_names() -> list[str]:
    return ([f"kbnufft__nufft__{m}" for m in KBNUFFT_MODULES]
            + [f"kbnufft__sparse__{m}" for m in ("KbNufft", "KbNufftAdjoint")])


def kbnufft_case(group: str, name: str) -> Case:
    import math

    import torch
    import torchkbnufft as tkbn

    torch.manual_seed(0)
    im, grid = (8, 8), (16, 16)
    omega = (torch.rand(2, 20) * 2 - 1) * math.pi
    image = torch.randn(1, 1, *im, dtype=torch.complex64)
    data = torch.randn(1, 1, 20, dtype=torch.complex64)
    if group == "sparse":
        mats = tkbn.calc_tensor_spmatrix(omega, im_size=im)
        module = getattr(tkbn, name)(im_size=im)
        return (lambda x, om: module(x, om, interp_mats=mats)), (image if name == "KbNufft" else data, omega)
    if name == "ToepNufft":
        return tkbn.ToepNufft(), (image, tkbn.calc_toeplitz_kernel(omega, im))
    if name == "KbInterp":
        return tkbn.KbInterp(im_size=im, grid_size=grid), (torch.randn(1, 1, *grid, dtype=torch.complex64), omega)
    if name == "KbInterpAdjoint":
        return tkbn.KbInterpAdjoint(im_size=im, grid_size=grid), (data, omega)
    return getattr(tkbn, name)(im_size=im), (image if name == "KbNufft" else data, omega)


# the sixteenth round: simulation-based inference (sbi): the density and ratio estimators it trains
# (their loss, as a training step computes it), their log-density and sampling, the score and
# flow-matching estimators' losses, the embedding nets of the data, and a posterior's sampling and
# log-probability (rejection of samples outside the prior, a loop of accepted draws)
SBI_DENSITY = ("mdn", "made", "maf", "maf_rqs", "nsf", "zuko_maf", "zuko_nsf", "zuko_nice", "zuko_naf", "zuko_gf",
               "zuko_bpf", "zuko_sospf", "zuko_unaf", "zuko_ncsf")
SBI_METHODS = {"loss": "loss", "logprob": "log_prob", "sample": "sample"}
SBI_RATIO = ("mlp", "resnet", "linear")
SBI_FIELDS = ("ve", "vp", "subvp", "flow")
SBI_EMBEDDINGS = ("FCEmbedding", "CNNEmbedding", "CausalCNNEmbedding", "PermutationInvariantEmbedding",
                  "ResNetEmbedding1D", "SpectralConvEmbedding", "LRUEmbedding")
SBI_POSTERIOR = ("sample", "log_prob")


def sbi_names() -> list[str]:
    return ([f"sbi__npe__{m}_{k}" for m in SBI_DENSITY for k in SBI_METHODS]
            + [f"sbi__nle__{m}_loss" for m in ("mdn", "maf", "nsf")]
            + [f"sbi__nre__{m}_ratio" for m in SBI_RATIO]
            + [f"sbi__field__{m}" for m in SBI_FIELDS] + [f"sbi__embed__{n}" for n in SBI_EMBEDDINGS]
            + [f"sbi__posterior__{k}" for k in SBI_POSTERIOR])


def _sbi_data():
    import torch

    torch.manual_seed(0)
    return torch.randn(32, 3), torch.randn(32, 5)


def _sbi_estimator(group: str, model: str):
    """The estimator of a case, built on the data as sbi's trainers build it."""
    from sbi.neural_nets import classifier_nn, likelihood_nn, posterior_flow_nn, posterior_nn, posterior_score_nn

    theta, x = _sbi_data()
    if group == "npe":
        return posterior_nn(model)(theta, x)
    if group == "nle":
        return likelihood_nn(model)(theta, x)  # (its input is the data, its condition the parameters)
    if group == "nre":
        return classifier_nn(model)(theta, x)
    if model == "flow":
        return posterior_flow_nn()(theta, x)
    return posterior_score_nn(sde_type=model)(theta, x)


def _sbi_entries(group: str, item: str) -> list[str]:
    """What each case calls of its estimator (the method's defining class)."""
    if group in ("embed", "posterior"):
        if group == "embed":
            return []
        from sbi.inference import DirectPosterior

        cls, method = DirectPosterior, item
    else:
        model, _, kind = item.rpartition("_") if group != "field" else (item, "", "loss")
        method = {"loss": "loss", "logprob": "log_prob", "sample": "sample",
                  "ratio": "unnormalized_log_ratio"}[kind]
        cls = type(_sbi_estimator(group, model))
    owner = next(k for k in cls.__mro__ if method in vars(k))
    return [f"{owner.__module__}.{owner.__qualname__}.{method}"]


def sbi_case(group: str, name: str) -> Case:
    import torch

    theta, x = _sbi_data()
    if group == "embed":
        import sbi.neural_nets.embedding_nets as nets

        torch.manual_seed(0)
        if name == "FCEmbedding":
            return nets.FCEmbedding(input_dim=5), (x,)
        if name in ("CNNEmbedding", "CausalCNNEmbedding"):
            kwargs = {"pool_kernel_size": 4} if name == "CausalCNNEmbedding" else {}
            return getattr(nets, name)(input_shape=(64,), **kwargs), (torch.randn(4, 64),)
        if name == "PermutationInvariantEmbedding":
            trial = nets.FCEmbedding(input_dim=5, output_dim=8)
            return nets.PermutationInvariantEmbedding(trial, trial_net_output_dim=8), (torch.randn(4, 6, 5),)
        if name == "ResNetEmbedding1D":
            return nets.ResNetEmbedding1D(c_in=5, c_out=8, n_blocks=2, c_internal=16, c_hidden_final=16), (x,)
        if name == "SpectralConvEmbedding":
            return nets.SpectralConvEmbedding(in_channels=1, modes=4), (torch.randn(4, 1, 32),)
        return nets.LRUEmbedding(input_dim=5, output_dim=8), (torch.randn(4, 12, 5),)
    if group == "posterior":
        from sbi.inference import DirectPosterior
        from sbi.utils import BoxUniform

        prior = BoxUniform(low=-3 * torch.ones(3), high=3 * torch.ones(3))
        posterior = DirectPosterior(_sbi_estimator("npe", "maf"), prior)
        if name == "sample":
            return (lambda x_o: posterior.sample((16,), x=x_o, show_progress_bars=False)), (x[:1],)
        return (lambda t, x_o: posterior.log_prob(t, x=x_o)), (theta[:8].clamp(-2, 2), x[:1])
    if group == "field":
        estimator = _sbi_estimator(group, name)
        return (lambda t, c: estimator.loss(t, c)), (theta, x)
    model, _, kind = name.rpartition("_")
    estimator = _sbi_estimator(group, model)
    if group == "nle":
        return (lambda c, t: estimator.loss(c, t)), (x, theta)
    if group == "nre":  # (the ratio estimator's loss is its trainer's)
        return (lambda t, c: estimator.unnormalized_log_ratio(t, c)), (theta, x)
    if kind == "loss":
        return (lambda t, c: estimator.loss(t, c)), (theta, x)
    if kind == "logprob":
        return (lambda t, c: estimator.log_prob(t, c)), (theta[:8].unsqueeze(1), x[:1])
    return (lambda c: estimator.sample((4,), c)), (x[:2],)


# the seventeenth round: speech recognition's decoding (openai-whisper, studied by its hash): a small
# multilingual model with random weights (whole, its encoder and decoder, also trained), the logit
# filters and token decoders of its decoding loop, the decoding loop itself and language detection,
# and the audio front end and timing helpers
WHISPER_CASES = {
    "model": ("Whisper", "AudioEncoder", "TextDecoder"),
    "filter": ("SuppressBlank", "SuppressTokens", "ApplyTimestampRules"),
    "step": ("GreedyDecoder_update", "GreedyDecoder_sample", "GreedyDecoder_finalize", "BeamSearchDecoder_update",
             "BeamSearchDecoder_finalize", "MaximumLikelihoodRanker_rank"),
    "fn": ("log_mel_spectrogram", "pad_or_trim", "median_filter", "detect_language", "decode", "decode_beam"),
}
WHISPER_ENTRIES = {  # what each case calls beyond a module's forward (class.method or module.function)
    "SuppressBlank": ["decoding.SuppressBlank.apply"], "SuppressTokens": ["decoding.SuppressTokens.apply"],
    "ApplyTimestampRules": ["decoding.ApplyTimestampRules.apply"],
    "GreedyDecoder_update": ["decoding.GreedyDecoder.update"], "GreedyDecoder_sample": ["decoding.GreedyDecoder.update"],
    "GreedyDecoder_finalize": ["decoding.GreedyDecoder.finalize"],
    "BeamSearchDecoder_update": ["decoding.BeamSearchDecoder.update"],
    "BeamSearchDecoder_finalize": ["decoding.BeamSearchDecoder.finalize"],
    "MaximumLikelihoodRanker_rank": ["decoding.MaximumLikelihoodRanker.rank"],
    "log_mel_spectrogram": ["audio.log_mel_spectrogram"], "pad_or_trim": ["audio.pad_or_trim"],
    "median_filter": ["timing.median_filter"], "detect_language": ["decoding.detect_language"],
    "decode": ["decoding.decode"], "decode_beam": ["decoding.decode"],
}


def whisper_names() -> list[str]:
    return [f"whisper__{group}__{item}" for group, items in WHISPER_CASES.items() for item in items]


def _whisper_model():
    import torch
    from whisper.model import ModelDimensions, Whisper

    torch.manual_seed(0)
    dims = ModelDimensions(n_mels=80, n_audio_ctx=16, n_audio_state=32, n_audio_head=2, n_audio_layer=1,
                           n_vocab=51865, n_text_ctx=32, n_text_state=32, n_text_head=2, n_text_layer=1)
    return Whisper(dims).eval()


def whisper_case(group: str, name: str) -> Case:
    import torch
    import whisper.decoding as decoding
    from whisper.tokenizer import get_tokenizer

    torch.manual_seed(0)
    tokenizer = get_tokenizer(True, num_languages=99, language="en", task="transcribe")
    prompt = torch.tensor([list(tokenizer.sot_sequence) + [440, 1002, 50365]] * 2)
    if group == "model":
        model = _whisper_model()
        mel = torch.randn(2, 80, 32)
        if name == "Whisper":
            return model, (mel, prompt)
        if name == "AudioEncoder":
            return model.encoder, (mel,)
        return model.decoder, (prompt, model.encoder(mel).detach())
    if group == "filter":
        begin = len(tokenizer.sot_sequence)
        made = {"SuppressBlank": lambda: decoding.SuppressBlank(tokenizer, begin + 3),
                "SuppressTokens": lambda: decoding.SuppressTokens([1, 2, 7, 220, tokenizer.no_speech]),
                "ApplyTimestampRules": lambda: decoding.ApplyTimestampRules(tokenizer, begin, 50)}[name]()

        def apply(logits, tokens):
            made.apply(logits, tokens)
            return logits

        return apply, (torch.randn(2, 51865), prompt)
    if group == "step":
        logits, sums = torch.randn(2, 51865), torch.zeros(2)
        if name.startswith("GreedyDecoder"):
            greedy = decoding.GreedyDecoder(1.0 if name.endswith("sample") else 0.0, tokenizer.eot)
            if name.endswith("finalize"):
                return (lambda t, s: greedy.finalize(t, s)), (prompt, sums)
            return (lambda t, l, s: greedy.update(t, l, s)), (prompt, logits, sums)
        if name.startswith("BeamSearchDecoder"):
            model = _whisper_model()
            inference = decoding.PyTorchInference(model, prompt.shape[1])
            beam = decoding.BeamSearchDecoder(2, tokenizer.eot, inference)
            if name.endswith("finalize"):
                beam.reset()
                beam.finished_sequences = [{}]
                return (lambda t, s: beam.finalize(t, s)), (prompt[None], torch.randn(1, 2))  # (audio, beam, ...)
            beam.reset()
            return (lambda t, l, s: beam.update(t, l, s)), (prompt, logits, sums)
        ranker = decoding.MaximumLikelihoodRanker(None)
        return (lambda t, s: ranker.rank(t, s)), ([[prompt[0], prompt[1, :5]]], [[-3.0, -2.5]])
    import whisper

    if name == "log_mel_spectrogram":
        return (lambda a: whisper.log_mel_spectrogram(a)), (torch.randn(1600),)
    if name == "pad_or_trim":
        return (lambda a: whisper.pad_or_trim(a, 400)), (torch.randn(1000),)
    if name == "median_filter":
        from whisper.timing import median_filter

        return (lambda x: median_filter(x, 5)), (torch.randn(2, 4, 32),)
    model = _whisper_model()
    mel = torch.randn(1, 80, 32)
    if name == "detect_language":
        return (lambda m: decoding.detect_language(model, m, tokenizer)), (mel,)
    beam = {"beam_size": 2} if name == "decode_beam" else {}
    options = whisper.DecodingOptions(language="en", sample_len=6, fp16=False, **beam)
    return (lambda m: whisper.decode(model, m, options)), (mel,)


# Groups of whole models, which the harness also runs in training mode.
TRAIN_GROUPS = {*((lib, "lm") for lib in LM_CASES), ("sbi", "embed"), ("whisper", "model"), ("catalyst", "loss"), ("catalyst", "head"), ("catalyst", "layer"), ("torchani", "model"), ("pyg", "models"), ("monai", "nets"), ("diffusers", "models"), ("xt", "models"), ("mamba", "model"), ("kan", "model"),
                *((lib, group) for lib, groups in GENERIC.items() for group in groups)}

LIBRARIES = {
    "kornia": (kornia_names, kornia_case),
    "pyg": (pyg_names, pyg_case),
    "tm": (tm_names, tm_case),
    "monai": (monai_names, monai_case),
    "diffusers": (diffusers_names, diffusers_case),
    "xt": (xt_names, xt_case),
    "ode": (ode_names, ode_case),
    "sde": (sde_names, sde_case),
    "torchode": (torchode_names, torchode_case),
    "cde": (cde_names, cde_case),
    "surv": (surv_names, surv_case),
    "geomloss": (geomloss_names, geomloss_case),
    "entmax": (entmax_names, entmax_case),
    "crf": (crf_names, crf_case),
    "ncps": (ncps_names, ncps_case),
    "struct": (struct_names, struct_case),
    "fm": (fm_names, fm_case),
    "ptwt": (ptwt_names, ptwt_case),
    "mamba": (mamba_names, mamba_case),
    "freia": (freia_names, freia_case),
    "geoopt": (geoopt_names, geoopt_case),
    "kan": (kan_names, kan_case),
    "pomegranate": (pomegranate_names, pomegranate_case),
    "quad": (quad_names, quad_case),
    "minimize": (minimize_names, minimize_case),
    "kmeans": (kmeans_names, kmeans_case),
    "optim": (optim_names, optim_case),
    "popt": (popt_names, popt_case),
    "linop": (linop_names, linop_case),
    "torchani": (torchani_names, torchani_case),
    "afb": (afb_names, afb_case),
    "kbnufft": (kbnufft_names, kbnufft_case),
    "botorch": (botorch_names, botorch_case),
    "catalyst": (catalyst_names, catalyst_case),
    "sbi": (sbi_names, sbi_case),
    "whisper": (whisper_names, whisper_case),
    **{lib: (_lm_names(lib), lm_case) for lib in LM_CASES},
    **{lib: ((lambda lib=lib: _generic_names(lib)), (lambda g, n, lib=lib: generic_case(lib, g, n)))
       for lib in GENERIC if lib not in ("monai", "diffusers")},
}
# The installed packages each library's findings and break sites are scored in.
PACKAGES = {
    "kornia": "kornia", "pyg": "torch_geometric", "tm": "torchmetrics", "monai": "monai",
    "diffusers": "diffusers", "xt": "x_transformers", "ode": "torchdiffeq", "sde": "torchsde",
    "normflows": "normflows", "e3nn": "e3nn", "zuko": "zuko", "vq": "vector_quantize_pytorch",
    "tabnet": "pytorch_tabnet", "gpytorch": "gpytorch", "pyro": "pyro",
    "nflows": "nflows", "torchode": "torchode", "cde": "torchcde", "surv": "torchsurv", "geomloss": "geomloss",
    "entmax": "entmax", "fm": "flow_matching", "crf": "torchcrf", "ncps": "ncps", "struct": "torch_struct",
    "auraloss": "auraloss", "msssim": "pytorch_msssim", "reformer": "reformer_pytorch", "egnn": "egnn_pytorch",
    "snn": "snntorch", "ptwt": "ptwt",
    "julius": "julius", "nnaudio": "nnAudio", "perceiver": "perceiver_pytorch", "localattn": "local_attention",
    "rtdl": "rtdl_revisiting_models", "mamba": "mambapy", "freia": "FrEIA", "geoopt": "geoopt",
    "kan": "kan", "pomegranate": "pomegranate", "quad": "torchquad", "minimize": "torchmin",
    "kmeans": "fast_pytorch_kmeans", "optim": "torch_optimizer", "linop": "linear_operator",
    "moe": "mixture_of_experts", "stmoe": "st_moe_pytorch", "colt5": "colt5_attention",
    "softmoe": "soft_moe_pytorch", "performer": "performer_pytorch", "torchani": "torchani",
    "afb": "asteroid_filterbanks", "kbnufft": "torchkbnufft",
    "rotary": "rotary_embedding_torch", "linformer": "linformer", "librosa": "torchlibrosa",
    "routing": "routing_transformer", "wavelets": "pytorch_wavelets", "tltorch": "tltorch", "tcn": "pytorch_tcn",
    "popt": "pytorch_optimizer", "botorch": "botorch", "catalyst": "catalyst",
    "palm": "palm_rlhf_pytorch", "coca": "coca_pytorch", "mlm": "mlm_pytorch", "megabyte": "MEGABYTE_pytorch",
    "sbi": "sbi", "whisper": "whisper",
}
# The split, made once by a rule and never by results: the six libraries above `ode` were studied
# before it existed and stay studied; of the libraries added with it, ranked by the SHA-256 of
# their package name, the first five (a third of all fifteen) are held out. A library added later
# goes by its own hash, so that adding one never moves another: held out when the SHA-256 of its
# package name, read as a number, is a multiple of 3. Held-out findings are never read while the
# analysis changes: `run.py` prints only their totals.
_ORIGINAL = ("kornia", "pyg", "tm", "monai", "diffusers", "xt")
_LATER = ("nflows", "torchode", "cde", "surv", "geomloss", "entmax", "fm", "crf", "ncps", "struct",
          "auraloss", "msssim", "reformer", "egnn", "snn", "ptwt",
          "julius", "nnaudio", "perceiver", "localattn", "rtdl", "mamba", "freia", "geoopt",
          "kan", "pomegranate", "quad", "minimize", "kmeans", "optim", "linop",
          "moe", "stmoe", "colt5", "softmoe", "performer", "torchani", "afb", "kbnufft",
          "rotary", "linformer", "librosa", "routing", "wavelets", "tltorch", "tcn",
          "popt", "botorch", "catalyst", "palm", "coca", "mlm", "megabyte", "sbi", "whisper")


def _sha(lib: str) -> str:
    return hashlib.sha256(PACKAGES[lib].encode()).hexdigest()


HELD_OUT = frozenset([*sorted((k for k in PACKAGES if k not in _ORIGINAL + _LATER), key=_sha)[:5],
                      *(k for k in _LATER if int(_sha(k), 16) % 3 == 0)])
for _lib in ("monai", "diffusers"):  # their generic groups beside their own
    _own = LIBRARIES[_lib]
    LIBRARIES[_lib] = ((lambda own=_own[0], lib=_lib: own() + _generic_names(lib)),
                       (lambda g, n, own=_own[1], lib=_lib: generic_case(lib, g, n) if g in GENERIC[lib]
                        else own(g, n)))


def entry_points(names: list[str]) -> list[str]:
    """Dotted names of the library functions the function cases compile (what a user who compiles
    them from their own code would write in `entry-points`); modules need none: their forward is
    reached on its own."""
    out = []
    for name in names:
        lib, group, item = name.split("@")[0].split("__")
        try:
            if lib == "tm":
                fn = getattr(importlib.import_module(TM_MODULES[group]), item)
            elif lib == "pyg" and group == "pool":
                fn = getattr(importlib.import_module("torch_geometric.nn.pool"), item)
            elif lib in GENERIC and group in GENERIC[lib]:
                out.extend(_generic_entries(lib, group, item))
                continue
            elif lib == "ode":
                out.append({"odeint": "torchdiffeq._impl.odeint.odeint",
                            "adjoint": "torchdiffeq._impl.adjoint.odeint_adjoint",
                            "event": "torchdiffeq._impl.odeint.odeint_event"}[group])
                continue
            elif lib == "sde":
                out.append("torchsde._core.sdeint.sdeint")
                continue
            elif lib == "ptwt" and group == "fn":
                fn = getattr(importlib.import_module("ptwt"), item)
            elif lib == "ptwt":  # what calling the transform object runs
                k = getattr(importlib.import_module("ptwt"), item)
                out.append(f"{k.__module__}.{k.__qualname__}.__call__")
                continue
            elif lib == "torchode":
                out.append({"ivp": "torchode.interface.solve_ivp",
                            "controller": "torchode.adjoints.AutoDiffAdjoint.solve",
                            "backsolve": "torchode.adjoints.BacksolveAdjoint.solve"}[group])
                continue
            elif lib == "cde":  # the coefficients' function; the forward's path and solve
                import torchcde

                path = item.rsplit("_", 1)[0]
                if group == "coeffs":
                    fn = getattr(torchcde, CDE_PATHS[path][0])
                else:
                    k = getattr(torchcde, CDE_PATHS[path][1])
                    out.extend(f"{k.__module__}.{k.__qualname__}.{m}" for m in ("__init__", "evaluate"))
                    out.append("torchcde.solver.cdeint")
                    continue
            elif lib == "surv" and group == "loss":
                module, fn_name, _ = SURV_LOSSES[item]
                fn = getattr(importlib.import_module(f"torchsurv.loss.{module}"), fn_name)
            elif lib == "surv":  # a metric or the estimator: what calling the object runs
                k = (getattr(importlib.import_module(f"torchsurv.metrics.{SURV_METRICS[item][0]}"), SURV_METRICS[item][1])
                     if group == "metric" else importlib.import_module("torchsurv.stats.kaplan_meier").KaplanMeierEstimator)
                out.append(f"{k.__module__}.{k.__qualname__}.__call__")
                continue
            elif lib == "fm":  # the method each case calls (the loss is a module)
                out.extend({"ode": ["flow_matching.solver.ode_solver.ODESolver.sample"],
                            "likelihood": ["flow_matching.solver.ode_solver.ODESolver.compute_likelihood"],
                            "path": ["flow_matching.path.affine.AffineProbPath.sample"],
                            "discrete": ["flow_matching.path.mixture.MixtureDiscreteProbPath.sample",
                                         "flow_matching.solver.discrete_solver.MixtureDiscreteEulerSolver.sample"],
                            "riemann": ["flow_matching.solver.riemannian_ode_solver.RiemannianODESolver.sample"],
                            "geodesic": ["flow_matching.path.geodesic.GeodesicProbPath.sample"]}[group])
                continue
            elif lib == "crf" and group == "decode":
                out.append("torchcrf.CRF.decode")
                continue
            elif lib == "struct":  # the distribution built, and the quantity asked of it
                import torch_struct

                dist, prop = item.rsplit("_", 1)
                cls = getattr(torch_struct, dist)
                for method in ("__init__", prop):
                    owner = next(k for k in cls.__mro__ if method in vars(k))
                    out.append(f"{owner.__module__}.{owner.__qualname__}.{method}")
                continue
            elif lib == "geoopt":  # the manifold's map the case calls
                cls = getattr(importlib.import_module("geoopt.manifolds"), group)
                owner = next(k for k in cls.__mro__ if item in vars(k))
                out.append(f"{owner.__module__}.{owner.__qualname__}.{item}")
                continue
            elif lib in ("pomegranate", "quad", "kmeans"):  # the method the case calls, where its class has it
                if lib == "pomegranate":
                    what, query = item.split("_", 1) if item.endswith("log_probability") else item.rsplit("_", 1)
                    where = {"DenseHMM": "pomegranate.hmm", "SparseHMM": "pomegranate.hmm",
                             "GeneralMixtureModel": "pomegranate.gmm", "KMeans": "pomegranate.kmeans"}
                    cls = getattr(importlib.import_module(where.get(what, "pomegranate.distributions")), what)
                elif lib == "quad":
                    cls, query = getattr(importlib.import_module("torchquad"), item), "integrate"
                else:
                    cls, query = importlib.import_module("fast_pytorch_kmeans").KMeans, item
                owner = next(k for k in cls.__mro__ if query in vars(k))
                out.append(f"{owner.__module__}.{owner.__qualname__}.{query}")
                continue
            elif lib == "linop":  # the operator's constructor and the query asked of it
                from linear_operator import operators

                cls = getattr(operators, {"Kronecker": "KroneckerProductLinearOperator",
                                          "KroneckerAddedDiag": "KroneckerProductAddedDiagLinearOperator"}.get(
                    item, f"{item}LinearOperator"))
                for method in ("__init__", LINOP_QUERIES[group]):
                    owner = next(k for k in cls.__mro__ if method in vars(k))
                    out.append(f"{owner.__module__}.{owner.__qualname__}.{method}")
                continue
            elif lib in ("optim", "popt"):  # the optimizer's step
                cls = getattr(importlib.import_module(PACKAGES[lib]), item)
                owner = next(k for k in cls.__mro__ if "step" in vars(k))
                out.append(f"{owner.__module__}.{owner.__qualname__}.step")
                continue
            elif lib == "minimize":
                out.append("torchmin.minimize.minimize")
                continue
            elif lib == "botorch" and group == "model":  # the model's posterior
                cls = getattr(importlib.import_module("botorch.models"), item)
                owner = next(k for k in cls.__mro__ if "posterior" in vars(k))
                out.append(f"{owner.__module__}.{owner.__qualname__}.posterior")
                continue
            elif lib == "botorch" and group == "pareto" and item == "is_non_dominated":
                out.append("botorch.utils.multi_objective.pareto.is_non_dominated")
                continue
            elif lib == "botorch" and group == "pareto" and not item.startswith("q"):  # what the case calls
                if item == "Hypervolume":
                    out.append("botorch.utils.multi_objective.hypervolume.Hypervolume.compute")
                    continue
                cls = getattr(importlib.import_module("botorch.utils.multi_objective.box_decompositions"), item)
                for method in ("__init__", "compute_hypervolume"):
                    owner = next(k for k in cls.__mro__ if method in vars(k))
                    out.append(f"{owner.__module__}.{owner.__qualname__}.{method}")
                continue
            elif lib == "monai" and group == "det":
                if item in MONAI_DETECTION_ENTRIES:
                    out.extend(MONAI_DETECTION_ENTRIES[item])
                    continue
                if item == "RetinaNetDetector":
                    continue
                fn = getattr(importlib.import_module("monai.data.box_utils"), item)
            elif lib in LM_CASES:
                out.extend(LM_ENTRIES.get(item, []))
                continue
            elif lib == "sbi":
                out.extend(_sbi_entries(group, item))
                continue
            elif lib == "whisper":
                out.extend(f"whisper.{entry}" for entry in WHISPER_ENTRIES.get(item, []))
                continue
            elif lib == "catalyst" and group == "metric":
                fn = getattr(importlib.import_module("catalyst.metrics.functional"), item)
            elif lib == "diffusers" and group == "sched":
                cls = getattr(importlib.import_module("diffusers"), item)
                out.append(f"{cls.__module__}.{cls.__qualname__}.step")
                continue
            else:
                continue
        except Exception:
            continue
        out.append(f"{fn.__module__}.{fn.__qualname__}")
    return sorted(set(out))


def names(libraries: list[str] | None = None) -> list[str]:
    out = []
    for lib, (lister, _) in LIBRARIES.items():
        if libraries and lib not in libraries:
            continue
        try:
            out.extend(lister())
        except Exception as exc:  # a library that is not installed has no cases
            print(f"cases: {lib}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return out


def __getattr__(name: str) -> Callable[[], Case]:
    """`cases.kornia__aug__RandomAffine` is the factory of that case (what the worker calls)."""
    parts = name.split("__")
    if len(parts) != 3 or parts[0] not in LIBRARIES:
        raise AttributeError(name)
    lib, group, item = parts
    maker = LIBRARIES[lib][1]
    return lambda: maker(group, item)


if __name__ == "__main__":
    print("\n".join(names(sys.argv[1:] or None)))
