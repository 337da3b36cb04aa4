"""Segment Anything, a library the analysis was never shown (in neither half of the harness, not
reserved): the promptable segmentation model (a ViT image encoder, the prompt encoder for points,
boxes and masks, the two-way transformer mask decoder), its batched forward with mask
post-processing, the predictor over a set image, and the automatic mask generator's post-processing
helpers (its filters over the masks it keeps, stability scores, boxes from masks, crop-edge tests,
run-length encoding), under dynamo against the static pass on the same tree.

Run it where torch and segment-anything are installed together (here: `pip install torch==2.14.1
torchvision segment-anything`), from the repository root:

    python bench/unseen_sam.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_sam.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import numpy as np
import segment_anything
import torch
from segment_anything import SamPredictor
from segment_anything.modeling import ImageEncoderViT, MaskDecoder, PromptEncoder, Sam, TwoWayTransformer
from segment_anything.utils import amg
from segment_anything.utils.transforms import ResizeLongestSide

warnings.filterwarnings("ignore")
ROOT = Path(segment_anything.__file__).resolve().parent
ENTRY_POINTS = [f"segment_anything.utils.amg.{name}" for name in (
    "is_box_near_crop_edge", "box_xyxy_to_xywh", "mask_to_rle_pytorch", "calculate_stability_score",
    "uncrop_boxes_xyxy", "uncrop_points", "uncrop_masks", "batched_mask_to_box")] + [
    "segment_anything.predictor.SamPredictor.predict_torch",
    "segment_anything.modeling.sam.Sam.postprocess_masks", "segment_anything.modeling.sam.Sam.preprocess",
    "segment_anything.utils.transforms.ResizeLongestSide.apply_image_torch",
    "segment_anything.utils.transforms.ResizeLongestSide.apply_coords_torch",
    "segment_anything.utils.amg.MaskData.filter"]
SIZE, EMBED = 128, 32


def _sam():
    encoder = ImageEncoderViT(img_size=SIZE, patch_size=16, embed_dim=64, depth=2, num_heads=2, out_chans=EMBED,
                              use_rel_pos=True, window_size=4, global_attn_indexes=(1,))
    prompts = PromptEncoder(embed_dim=EMBED, image_embedding_size=(SIZE // 16, SIZE // 16),
                            input_image_size=(SIZE, SIZE), mask_in_chans=8)
    decoder = MaskDecoder(num_multimask_outputs=3, transformer_dim=EMBED,
                          transformer=TwoWayTransformer(depth=2, embedding_dim=EMBED, mlp_dim=64, num_heads=2),
                          iou_head_depth=2, iou_head_hidden_dim=32)
    return Sam(encoder, prompts, decoder).eval()


def _filtered(masks, iou):
    """The automatic mask generator's filters, on the tensors it keeps (`_process_batch` itself takes
    its points as a NumPy array, which dynamo fails to copy)."""
    data = amg.MaskData(masks=masks, iou_preds=iou)
    data.filter(iou > 0.5)
    data["boxes"] = amg.batched_mask_to_box(data["masks"])
    data.filter(~amg.is_box_near_crop_edge(data["boxes"], [0, 0, 50, 40], [0, 0, 50, 40]))
    return data["masks"], data["boxes"]


def cases():
    g = torch.Generator().manual_seed(0)
    sam = _sam()
    image = torch.rand(3, 96, 128, generator=g) * 255
    resized = ResizeLongestSide(SIZE).apply_image_torch(image[None])[0]
    points = torch.rand(1, 2, 2, generator=g) * 96
    labels = torch.ones(1, 2, dtype=torch.int)
    box = torch.tensor([[10.0, 12.0, 60.0, 70.0]])
    out = [
        ("Sam.points", lambda inp: sam(inp, multimask_output=True),
         ([{"image": resized, "original_size": (96, 128), "point_coords": points, "point_labels": labels}],)),
        ("Sam.box", lambda inp: sam(inp, multimask_output=False),
         ([{"image": resized, "original_size": (96, 128), "boxes": box}],)),
        ("Sam.mask", lambda inp: sam(inp, multimask_output=False),
         ([{"image": resized, "original_size": (96, 128), "point_coords": points, "point_labels": labels,
            "mask_inputs": torch.randn(1, 1, SIZE // 4, SIZE // 4, generator=g)}],)),
        ("ImageEncoderViT", sam.image_encoder, (torch.randn(1, 3, SIZE, SIZE, generator=g),)),
        ("PromptEncoder", lambda p, l, b: sam.prompt_encoder((p, l), b, None), (points, labels, box)),
        ("Sam.postprocess_masks", lambda m: sam.postprocess_masks(m, (96, 128), (96, 128)),
         (torch.randn(1, 3, SIZE // 4, SIZE // 4, generator=g),)),
        ("Sam.preprocess", sam.preprocess, (resized,)),
    ]
    predictor = SamPredictor(sam)
    predictor.set_image((np.random.default_rng(0).random((96, 128, 3)) * 255).astype(np.uint8))
    out += [
        ("SamPredictor.predict_torch", lambda p, l: predictor.predict_torch(p, l, multimask_output=True),
         (predictor.transform.apply_coords_torch(points, (96, 128)), labels)),
        ("SamPredictor.predict_torch.box", lambda b: predictor.predict_torch(None, None, boxes=b,
                                                                             multimask_output=False),
         (predictor.transform.apply_boxes_torch(box, (96, 128)),)),
    ]
    masks = torch.rand(3, 40, 50, generator=g) > 0.5
    boxes = torch.tensor([[0.0, 0.0, 20.0, 30.0], [5.0, 5.0, 49.0, 39.0]])
    out += [
        ("is_box_near_crop_edge", lambda b: amg.is_box_near_crop_edge(b, [0, 0, 50, 40], [0, 0, 50, 40]), (boxes,)),
        ("box_xyxy_to_xywh", amg.box_xyxy_to_xywh, (boxes[0],)),
        ("mask_to_rle_pytorch", amg.mask_to_rle_pytorch, (masks,)),
        ("calculate_stability_score", lambda m: amg.calculate_stability_score(m, 0.0, 1.0),
         (torch.randn(3, 40, 50, generator=g),)),
        ("uncrop_boxes_xyxy", lambda b: amg.uncrop_boxes_xyxy(b, [4, 6, 54, 46]), (boxes,)),
        ("uncrop_points", lambda p: amg.uncrop_points(p, [4, 6, 54, 46]), (boxes[:, :2],)),
        ("uncrop_masks", lambda m: amg.uncrop_masks(m, [4, 6, 54, 46], 60, 70), (masks,)),
        ("batched_mask_to_box", amg.batched_mask_to_box, (masks,)),
        ("MaskData.filter", _filtered, (masks, torch.rand(3, generator=g))),
        ("ResizeLongestSide.apply_image_torch", ResizeLongestSide(64).apply_image_torch, (image[None],)),
        ("ResizeLongestSide.apply_coords_torch", lambda p: ResizeLongestSide(64).apply_coords_torch(p, (96, 128)),
         (points,)),
    ]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"segment-anything {getattr(segment_anything, '__version__', '1.0')}")
