# expect: configure fails
# output: cases/model_unknown_provider.cmake: MODEL: 'ollama/qwen2.5-coder' is not provider/model with a provider kernelgen knows
# output: providers: openai, anthropic, gemini, replay; a local OpenAI-compatible server is openai/<model> with OPENAI_BASE_URL
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  MODEL       ollama/qwen2.5-coder)
