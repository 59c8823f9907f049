"""Training the code-search encoder that branchwise ships as its default model.

A tool of the repository, never imported by the product (tests/test_architecture.py keeps
the product from importing it): it mines (question, code) pairs from standard libraries
available offline, checks that none of its sources is benchmark code, fine-tunes
all-MiniLM-L6-v2 on them and writes the int8 ONNX model, its tokenizer, fp16 weights and
manifests into the package. `python -m train --help`; see train/README.md.
"""
