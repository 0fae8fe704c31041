#!/usr/bin/env python3
"""transformers' Trainer, unmodified, on GPT-2 built from a config (random weights, no download):
--steps optimizer steps on random token ids, no NVTX range anywhere. A callback logs the
program's own memory_allocated() at on_step_end (after the optimizer step and zero_grad) to
--log. Unless --fixed, a Trainer subclass keeps the last logits on `self.last_logits` (the planted
holder, replaced each step by the next one's), which the census should name.
"""
import argparse
import sys
import tempfile

import torch
from transformers import (GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback,
                          TrainingArguments)

from loop_log import WindowLog


class Tokens(torch.utils.data.Dataset):
    def __init__(self, count, seq, vocab):
        generator = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (count, seq), generator=generator)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class PlantedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        self.last_logits = outputs.logits  # kept into the idle window: the planted holder
        return (outputs.loss, outputs) if return_outputs else outputs.loss


class OwnCount(TrainerCallback):
    def __init__(self, log):
        self.log = log

    def on_step_end(self, args, state, control, **kwargs):
        self.log.after_step(state.global_step)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--embd", type=int, default=768)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--accumulation", type=int, default=1)
    p.add_argument("--fixed", action="store_true")
    p.add_argument("--log", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=args.layers, n_embd=args.embd, n_positions=args.seq)
    model = GPT2LMHeadModel(config)
    log = WindowLog("trainer", "trainer.last_logits")
    with tempfile.TemporaryDirectory() as out:
        training = TrainingArguments(
            output_dir=out, max_steps=args.steps, per_device_train_batch_size=args.batch,
            gradient_accumulation_steps=args.accumulation, learning_rate=1e-4,
            logging_steps=10_000, save_strategy="no", report_to="none", disable_tqdm=True,
            dataloader_num_workers=0)
        trainer_type = Trainer if args.fixed else PlantedTrainer
        trainer = trainer_type(model=model, args=training, callbacks=[OwnCount(log)],
                               train_dataset=Tokens(args.steps * args.batch * args.accumulation,
                                                    args.seq, config.vocab_size))
        trainer.train()
        log.measure_planted(lambda: setattr(trainer, "last_logits", None))
    log.write(args.log, steps=args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
