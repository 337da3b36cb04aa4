import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def logs_through_logger(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        logger.info("scaled")  # expect: BL402
    return x + 1


@torch.compile
def logs_through_module(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        logging.warning("scaled")  # expect: BL402
    return x + 1


@torch.compile
def guarded(x):
    x = x * 2
    if not torch.compiler.is_compiling():
        logger.info("eager only")
    return x + 1


class RankLogger:
    def __init__(self, name):
        self._log = logging.getLogger(name)

    def info_rank0(self, message):
        if not torch.compiler.is_compiling():
            self._log.info(message)  # expect: BL402


log = RankLogger(__name__)


@torch.compile
def logs_through_wrapper(x):
    x = x * 2
    log.info_rank0("scaled")  # the wrapper's own method: dynamo inlines it and breaks inside
    return x + 1


def cases():
    x = torch.randn(8)
    return [(logs_through_logger, (x,)), (logs_through_module, (x,)), (guarded, (x,)), (logs_through_wrapper, (x,))]
