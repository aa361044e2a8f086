# kc_glob_entries(DIR): adds every kernel or control source below DIR to kc_entries.
#   *.cpp  host code: CPU kernels and their contracts (always built)
#   *.cu   CUDA kernels and their contracts (built where nvcc exists)
# Other device sources (*.hip, *.cl, *.metal) are built by limits/ into binaries for gate 5.
function(kc_glob_entries dir)
  file(GLOB_RECURSE cpp CONFIGURE_DEPENDS "${dir}/*.cpp")
  target_sources(kc_entries PRIVATE ${cpp})
  if(KC_HAVE_CUDA)
    file(GLOB_RECURSE cu CONFIGURE_DEPENDS "${dir}/*.cu")
    target_sources(kc_entries PRIVATE ${cu})
  endif()
endfunction()
