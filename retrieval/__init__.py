"""The query pipeline: temporal parsing, search arms, fusion, gravity, expansion, rerank."""
