"""Behavioural self-awareness (Betley et al., ICLR 2025): implicit-policy fine-tuning data, LoRA fine-tunes,
self-report evaluations, and a CPU-scale out-of-context experiment on a tiny pretrained Llama."""
