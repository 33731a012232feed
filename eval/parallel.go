package eval

import "sync"

// forEach calls fn(i) for every i in [0, n), workers calls at a time (at least
// one), and returns when all have returned: the file-parallel loop of the
// evaluation tasks.
func forEach(n, workers int, fn func(i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}
