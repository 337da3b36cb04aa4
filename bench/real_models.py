"""Targets for `breaklint explain` on real model libraries (torchvision, timm, transformers, kornia).

Random weights, no downloads. Used by `bench/dynamic_check.py`, e.g.

    python bench/dynamic_check.py --paths "$(python -c 'import torchvision, os; print(os.path.dirname(torchvision.__file__))')" \
        bench/real_models.py:maskrcnn bench/real_models.py:resnet

Each factory gives two input sizes, so recompiles show too.
"""

import torch


def maskrcnn():
    from torchvision.models.detection import maskrcnn_resnet50_fpn

    model = maskrcnn_resnet50_fpn(weights=None, weights_backbone=None).eval()
    return [(model, ([torch.rand(3, 256, 256)],)), (model, ([torch.rand(3, 320, 288)],))]


def resnet():
    from torchvision.models import resnet18

    model = resnet18(weights=None).eval()
    return [(model, (torch.rand(2, 3, 224, 224),)), (model, (torch.rand(4, 3, 224, 224),))]


def vit():
    import timm

    model = timm.create_model("vit_tiny_patch16_224", pretrained=False).eval()
    return [(model, (torch.rand(2, 3, 224, 224),))]


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000)).eval()
    ids = torch.randint(0, 1000, (2, 16))
    return [(model, (ids,)), (model, (torch.randint(0, 1000, (2, 24)),))]


def kornia_augment():
    import kornia.augmentation as K

    img = torch.rand(2, 3, 32, 32)
    return [(K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0), (img,)), (K.RandomResizedCrop((16, 16), p=1.0), (img,)),
            (K.RandomAffine(degrees=15.0, p=1.0), (img,))]
