"""Compile into the weights: LoRA fine-tuning of the local model's generate step (DSPy's BootstrapFinetune idea).

`examples` builds the training pairs from the train split (the exact prompt the generate step sends, the gold
query as the answer), `chat` turns them into token ids as llama.cpp will see them, `lora` trains an adapter
with peft on the base weights read from the engine's own GGUF, `gguf_lora` writes it in llama.cpp's LoRA GGUF
format, and `run` makes a version folder of it.
"""
