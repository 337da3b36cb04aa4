"""Precision and recall of the static pass against dynamo on a real library (kornia).

    pip install kornia
    python bench/library_calibration.py

Each case is a kornia module or function with a small input. It is run once
eagerly under a line tracer (which lines of kornia ran) and once under
`torch._dynamo.explain` (where dynamo broke). A static `break` finding on a
line that ran is confirmed when dynamo broke on that line and a false alarm
otherwise; a dynamo break on a kornia line with no static finding is a miss.
Findings on lines that never ran are left out of both figures.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import torch

from breaklint.config import Config
from breaklint.dynamic import collect_breaks
from breaklint.engine import lint


def kornia_cases():
    import kornia
    import kornia.augmentation as K

    img = torch.rand(2, 3, 32, 32)
    gray = torch.rand(2, 1, 32, 32)
    pts = torch.rand(2, 10, 2)
    return [
        ("RandomHorizontalFlip", K.RandomHorizontalFlip(p=0.5), (img,)),
        ("ColorJitter", K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0), (img,)),
        ("RandomAffine", K.RandomAffine(degrees=15.0, p=1.0), (img,)),
        ("RandomResizedCrop", K.RandomResizedCrop((16, 16), p=1.0), (img,)),
        ("RandomGaussianNoise", K.RandomGaussianNoise(p=1.0), (img,)),
        ("GaussianBlur2d", kornia.filters.GaussianBlur2d((3, 3), (1.5, 1.5)), (img,)),
        ("Sobel", kornia.filters.Sobel(), (img,)),
        ("Canny", kornia.filters.Canny(), (img,)),
        ("RgbToHsv", kornia.color.RgbToHsv(), (img,)),
        ("RgbToLab", kornia.color.RgbToLab(), (img,)),
        ("SSIMLoss", kornia.losses.SSIMLoss(5), (img, img.flip(-1))),
        ("TotalVariation", kornia.losses.TotalVariation(), (img,)),
        ("Normalize", kornia.enhance.Normalize(torch.zeros(3), torch.ones(3)), (img,)),
        ("equalize", kornia.enhance.equalize, (img,)),
        ("Rotate", kornia.geometry.transform.Rotate(torch.tensor([30.0, 45.0])), (img,)),
        ("warp_perspective", kornia.geometry.transform.warp_perspective,
         (img, torch.eye(3).expand(2, 3, 3), (32, 32))),
        ("find_homography_dlt", kornia.geometry.homography.find_homography_dlt, (pts, pts + 0.1)),
        ("HarrisResponse", kornia.feature.CornerHarris(0.04), (gray,)),
        ("SIFTDescriptor", kornia.feature.SIFTDescriptor(32), (torch.rand(4, 1, 32, 32),)),
        ("dilation", kornia.morphology.dilation, (img, torch.ones(3, 3))),
        ("median_blur", kornia.filters.median_blur, (img, (3, 3))),
        ("ZCAWhitening", kornia.enhance.ZCAWhitening().fit(torch.rand(20, 3)), (torch.rand(5, 3),)),
    ]


def executed_lines(fn, args, root: str) -> set[tuple[str, int]]:
    seen: set[tuple[str, int]] = set()

    def tracer(frame, event, arg):
        filename = frame.f_code.co_filename
        if not filename.startswith(root):
            return None
        if event == "line":
            seen.add((filename, frame.f_lineno))
        return tracer

    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return seen


def main() -> int:
    import kornia

    root = str(Path(kornia.__file__).parent)
    findings = lint([Path(root)], Config(root=Path(root)), use_cache=False).findings
    static = defaultdict(list)
    for f in findings:
        if f.kind == "break":
            static[(str(f.path.resolve()), f.line)].append(f.code)
    totals = {"confirmed": 0, "false": 0, "missed": 0}
    details = []
    print(f"{'case':<24} {'graphs':>6} {'breaks':>6} {'confirmed':>9} {'false':>6} {'missed':>6}")
    for name, fn, args in kornia_cases():
        torch.manual_seed(0)
        try:
            ran = executed_lines(fn, args, root)
            torch.manual_seed(0)
            breaks, out = collect_breaks(fn, args)
        except Exception as exc:
            print(f"{name:<24} failed: {type(exc).__name__}: {str(exc)[:80]}")
            continue
        sites = {}
        for b in breaks:
            site = b.site(lambda fname: fname.startswith(root))
            if site is not None:
                sites[(str(Path(site[0]).resolve()), site[1])] = b.gb_type
        ran_static = {k for k in static if k in ran}
        confirmed = ran_static & set(sites)
        false = ran_static - set(sites)
        missed = set(sites) - set(static)
        totals["confirmed"] += len(confirmed)
        totals["false"] += len(false)
        totals["missed"] += len(missed)
        for k in sorted(false):
            details.append(f"  false alarm  {static[k]} {Path(k[0]).relative_to(root)}:{k[1]}  ({name})")
        for k in sorted(missed):
            details.append(f"  missed       {sites[k]} {Path(k[0]).relative_to(root)}:{k[1]}  ({name})")
        print(f"{name:<24} {getattr(out, 'graph_count', '?'):>6} {len(sites):>6} {len(confirmed):>9} "
              f"{len(false):>6} {len(missed):>6}")
    tp, fp, fn_ = totals["confirmed"], totals["false"], totals["missed"]
    print(f"precision {tp / max(tp + fp, 1):.3f} ({tp}/{tp + fp})  recall {tp / max(tp + fn_, 1):.3f} ({tp}/{tp + fn_})")
    print("\n".join(sorted(set(details))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
